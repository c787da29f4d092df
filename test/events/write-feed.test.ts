import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { memoryEventHub } from '../../src/events/memory-event-bus.js';
import type { EventBus } from '../../src/events/port.js';
import { type FeedEvent, decodeFeedEvent, encodeFeedEvent, writeFeed } from '../../src/events/write-feed.js';
import { memoryStorage } from '../../src/memory.js';
import { redisEventBus } from '../../src/redis.js';
import type { WriteEvent } from '../../src/events/write-event.js';
import { startTestService } from '../helpers/handle.js';
import { REDIS_URL, connectTestRedis, runPrefix } from '../redis/redis-env.js';
import { FAST_SCRYPT } from '../users/users-server.js';

const redis = await connectTestRedis('write-feed');
const redisPrefix = runPrefix('feed');
const subscribers: Redis[] = [];
afterAll(async () => {
  await Promise.all(subscribers.map((s) => s.quit()));
  await redis?.quit();
});

const BUSES: Array<[string, () => () => EventBus, boolean]> = [
  ['one memory hub', () => {
    const hub = memoryEventHub();
    return () => hub.bus();
  }, true],
  ['Redis', () => () => {
    const subscriber = new Redis(REDIS_URL);
    subscribers.push(subscriber);
    return redisEventBus({ publisher: redis!, subscriber, prefix: redisPrefix });
  }, redis !== null],
];

/** Waits (real time, polled) until `list` holds `n` items. */
async function until(list: unknown[], n: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (list.length < n) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${n} events (have ${list.length})`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe.each(BUSES)('write feed: two services on %s', (_name, makeBuses, available) => {
  /** Two service instances on one storage, each with its own bus and feed, both subscribed to the app. */
  async function twoInstances() {
    const bus = makeBuses();
    const storage = memoryStorage();
    const make = async (id: string) => {
      const feed = writeFeed({ bus: bus(), instanceId: id });
      const local: WriteEvent[] = [];
      const svc = startTestService({ storage, captcha: false, users: { scrypt: FAST_SCRYPT }, observers: [feed.observer, (e) => void local.push(e)] });
      const received: FeedEvent[] = [];
      await feed.subscribe('test-app', (e) => void received.push(e));
      return { svc, feed, local, received };
    };
    return [await make('instance-a'), await make('instance-b')] as const;
  }

  it.skipIf(!available)('a write on A reaches both, marked local on A and remote on B, with identical values', async () => {
    const [a, b] = await twoInstances();
    const res = await a.svc.request('POST', '/1/classes/Game', {
      body: {
        name: "O'Brien 中文",
        when: { __type: 'Date', iso: '2026-03-04 05:06:07.089' },
        at: { __type: 'GeoPoint', latitude: 30.5, longitude: -120.25 },
        owner: { __type: 'Pointer', className: 'Team', objectId: 'abc123' },
        nested: { list: [1, { d: { __type: 'Date', iso: '2020-01-01 00:00:00' } }], deep: { x: null } },
      },
    });
    expect(res.status).toBe(201);
    await until(a.received, 1);
    await until(b.received, 1);
    const [onA] = a.received;
    const [onB] = b.received;
    expect([onA!.local, onA!.instance, onB!.local, onB!.instance]).toEqual([true, 'instance-a', false, 'instance-a']);
    const { instance: _i, local: _l, ...wire } = onB!;
    expect(wire).toEqual(a.local[0]);
    expect(onB!.after!.when).toEqual({ __type: 'Date', iso: '2026-03-04T05:06:07.089Z' });
    expect(b.local).toEqual([]);
    await a.svc.close();
    await b.svc.close();
  });

  it.skipIf(!available)('updates and deletes on both instances arrive at each, in commit order per instance', async () => {
    const [a, b] = await twoInstances();
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push((await (i % 2 ? a : b).svc.request('POST', '/1/classes/Seq', { body: { n: i } })).body.objectId);
    await a.svc.request('PUT', `/1/classes/Seq/${ids[0]}`, { body: { n: { __op: 'Increment', amount: 100 } } });
    await b.svc.request('DELETE', `/1/classes/Seq/${ids[1]}`);
    await until(a.received, 22);
    await until(b.received, 22);
    for (const received of [a.received, b.received]) {
      const fromA = received.filter((e) => e.instance === 'instance-a');
      const fromB = received.filter((e) => e.instance === 'instance-b');
      expect(fromA.map((e) => `${e.op}:${e.objectId}`)).toEqual([...ids.filter((_, i) => i % 2).map((id) => `create:${id}`), `update:${ids[0]}`]);
      expect(fromB.map((e) => `${e.op}:${e.objectId}`)).toEqual([...ids.filter((_, i) => i % 2 === 0).map((id) => `create:${id}`), `delete:${ids[1]}`]);
    }
    const update = b.received.find((e) => e.op === 'update')!;
    expect([update.before!.n, update.after!.n]).toEqual([0, 100]);
    await a.svc.close();
    await b.svc.close();
  });

  it.skipIf(!available)('system classes (users with password hashes, sessions) stay off the bus by default', async () => {
    const [a, b] = await twoInstances();
    expect((await a.svc.request('POST', '/1/users', { body: { username: 'u1', password: 'secret-pw' } })).status).toBe(201);
    await a.svc.request('POST', '/1/classes/Marker', { body: { m: 1 } });
    await until(b.received, 1);
    expect(a.local.some((e) => e.className === '_User')).toBe(true);
    expect(b.received.map((e) => e.className)).toEqual(['Marker']);
    await a.svc.close();
    await b.svc.close();
  });
});

describe('feed messages', () => {
  const event: WriteEvent = {
    op: 'update', app: 'app', className: 'C', objectId: 'o1',
    before: { objectId: 'o1', createdAt: { __type: 'Date', iso: '2026-01-01T00:00:00.000Z' }, updatedAt: { __type: 'Date', iso: '2026-01-01T00:00:00.000Z' }, n: 1 },
    after: { objectId: 'o1', createdAt: { __type: 'Date', iso: '2026-01-01T00:00:00.000Z' }, updatedAt: { __type: 'Date', iso: '2026-01-01T00:00:01.500Z' }, n: 2 },
  };

  it('round-trip exactly, and tell local from remote by instance id', () => {
    const text = encodeFeedEvent(event, 'me');
    expect(decodeFeedEvent(text, 'me')).toEqual({ ...event, instance: 'me', local: true });
    expect(decodeFeedEvent(text, 'other').local).toBe(false);
  });

  it('refuse malformed or hostile messages', () => {
    for (const bad of ['not json', '{}', '{"v":2}', '{"v":1,"instance":"x","op":"drop","app":"a","className":"C","objectId":"o"}',
      '{"v":1,"instance":"x","op":"create","app":"a","className":"C","objectId":"o","after":{"objectId":"o","__proto__":{"x":1}}}',
      '{"v":1,"instance":"x","op":"create","app":"a","className":"C","objectId":"o","after":[1]}']) {
      expect(() => decodeFeedEvent(bad, 'me'), bad).toThrow();
    }
  });

  it('on an in-process bus, a write no feed subscriber anywhere would receive is not published', async () => {
    const inner = memoryEventHub().bus();
    const published: string[] = [];
    const bus: EventBus = { ...inner, publish: (channel, message) => (published.push(message), inner.publish(channel, message)) };
    const feed = writeFeed({ bus, instanceId: 'me' });
    await feed.observer(event);
    expect(published).toEqual([]);
    const got: FeedEvent[] = [];
    await feed.subscribe('app', (e) => void got.push(e));
    await feed.observer(event);
    await until(got, 1);
    expect(published).toHaveLength(1);
  });

  it('a subscriber survives an undecodable message and logs it', async () => {
    const bus = memoryEventHub().bus();
    const warnings: string[] = [];
    const logger = { debug() {}, info() {}, error() {}, warn: (m: string) => void warnings.push(m) };
    const feed = writeFeed({ bus, instanceId: 'me', logger });
    const got: FeedEvent[] = [];
    await feed.subscribe('app', (e) => void got.push(e));
    await bus.publish('writes:app', 'garbage');
    await feed.observer(event);
    await until(got, 1);
    expect(warnings).toEqual(['write feed: undecodable message dropped']);
  });
});
