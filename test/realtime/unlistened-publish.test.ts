import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import type { EventBus } from '../../src/events/port.js';
import { memoryEventBus } from '../../src/events/memory-event-bus.js';
import { redisEventBus } from '../../src/redis.js';
import { REDIS_URL, connectTestRedis, runPrefix } from '../redis/redis-env.js';
import { changeChannel } from '../../src/realtime/change.js';
import { type Client, RT_APP, connect, jsonClient, rtHeaders, startRealtimeServer, subscribe } from './harness.js';

const redis = await connectTestRedis('realtime channel release');
const subscribers: Redis[] = [];
afterAll(async () => {
  await Promise.all(subscribers.map((subscriber) => subscriber.quit()));
  await redis?.quit();
});

/** The realtime channel of the test application (src/realtime/change.ts). */
const CHANNEL = changeChannel(RT_APP.applicationId);

/** A memory bus that records what was published on it. */
function recordingBus(): EventBus & { published: string[] } {
  const bus = memoryEventBus();
  const published: string[] = [];
  return {
    ...bus,
    published,
    publish: (channel, message) => {
      published.push(message);
      return bus.publish(channel, message);
    },
  };
}

/**
 * `step`, failing with the step's name if it has not settled within 8 s. The Redis case below timed
 * out as a whole under load (2026-11-29); named, it was "watcher event round 1": the second
 * instance's bus subscribed during ioredis's connection handshake and lost the event to the
 * reconnect that followed (redis/ioredis#2037, D229; test/redis/redis-event-bus.test.ts).
 */
async function within<T>(step: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const stuck = new Promise<never>((_resolve, reject) => (timer = setTimeout(() => reject(new Error(`stuck: ${what}`)), 8000)));
  try {
    return await Promise.race([step, stuck]);
  } finally {
    clearTimeout(timer);
  }
}

describe('realtime publishes only what some instance listens to', () => {
  it('on an in-process bus, a write with no subscriber anywhere publishes nothing; once one subscribes, every write is published and delivered', async () => {
    const bus = recordingBus();
    const server = await startRealtimeServer({ realtime: { bus } });
    try {
      expect((await server.request('POST', '/1/classes/Item', { body: { n: 1 } })).status).toBe(201);
      expect(bus.published).toEqual([]);
      const client = await jsonClient(server);
      await subscribe(client, { id: 1, action: 'updateTable', tableName: 'Item' });
      expect((await server.request('POST', '/1/classes/Item', { body: { n: 2 } })).status).toBe(201);
      expect(await client.json()).toMatchObject({ op: 'event', action: 'updateTable', tableName: 'Item', data: { n: 2 } });
      expect(bus.published).toHaveLength(1);
      client.ws.close();
      await client.closed;
      // Once the server side has seen the close, the application's channel is released.
      for (let turn = 0; turn < 1000 && bus.listened?.(CHANNEL) !== false; turn++) await new Promise((resolve) => setImmediate(resolve));
      expect(bus.listened?.(CHANNEL)).toBe(false);
      await server.request('POST', '/1/classes/Item', { body: { n: 3 } });
      expect(bus.published).toHaveLength(1);
      const again = await jsonClient(server);
      await subscribe(again, { id: 1, action: 'updateTable', tableName: 'Item' });
      await server.request('POST', '/1/classes/Item', { body: { n: 4 } });
      expect(await again.json()).toMatchObject({ op: 'event', data: { n: 4 } });
      expect(bus.published).toHaveLength(2);
    } finally {
      await server.close();
    }
  });

  it('a bus without `listened` (a networked one) gets every write, listened to or not', async () => {
    const inner = recordingBus();
    const { listened: _listened, ...networked } = inner;
    const server = await startRealtimeServer({ realtime: { bus: networked } });
    try {
      await server.request('POST', '/1/classes/Item', { body: { n: 1 } });
      expect(inner.published).toHaveLength(1);
    } finally {
      await server.close();
    }
  });

  it.skipIf(redis === null)('over Redis, the channel released by the last subscriber is listened to again by the next one at once, and a second instance still gets every change', async () => {
    const prefix = runPrefix('rt-release');
    const busOf = () => {
      const subscriber = new Redis(REDIS_URL);
      subscribers.push(subscriber);
      return redisEventBus({ publisher: redis!, subscriber, prefix });
    };
    const [one, two] = [await startRealtimeServer({ realtime: { bus: busOf() } }), await startRealtimeServer({ realtime: { bus: busOf() } })];
    try {
      const watcher = await within(jsonClient(two), 'watcher connect');
      await subscribe(watcher, { id: 1, action: 'updateTable', tableName: 'Item' });
      for (let round = 1; round <= 5; round++) {
        const client = await within(jsonClient(one), `connect round ${round}`);
        await within(subscribe(client, { id: 1, action: 'updateTable', tableName: 'Item' }), `subscribe round ${round}`);
        await within(one.request('POST', '/1/classes/Item', { body: { round } }), `write round ${round}`);
        expect(await within(client.json(), `client event round ${round}`)).toMatchObject({ op: 'event', data: { round } });
        expect(await within(watcher.json(), `watcher event round ${round}`)).toMatchObject({ op: 'event', data: { round } });
        // Leaves without waiting: the next round's subscriber arrives while the release is in flight.
        client.ws.terminate();
      }
    } finally {
      await within(one.close(), 'close one');
      await within(two.close(), 'close two');
    }
  });

  it('a subscription attempt that fails after its channel was released and listened to again leaves the new subscription alone: each change is delivered once', async () => {
    const inner = memoryEventBus();
    let subscribeCalls = 0;
    let failFirst: ((error: Error) => void) | undefined;
    const bus: EventBus = {
      ...inner,
      // The first SUBSCRIBE hangs until the test fails it; later ones succeed.
      subscribe: (channel, listener) =>
        ++subscribeCalls > 1 ? inner.subscribe(channel, listener) : new Promise((_resolve, reject) => (failFirst = reject)),
    };
    const server = await startRealtimeServer({ realtime: { bus } });
    const connections = async () => (await server.request('GET', '/1/realtime/connections', { auth: 'master' })).body.count as number;
    try {
      const first = (await connect(`${server.wsUrl}/1/realtime`, rtHeaders())) as Client;
      while ((await connections()) < 1);
      first.ws.terminate();
      await first.closed;
      // The server has seen the close: the hanging attempt's channel is released.
      while ((await connections()) > 0);
      const second = await jsonClient(server);
      failFirst!(new Error('the first SUBSCRIBE failed late'));
      const third = await jsonClient(server);
      await subscribe(third, { id: 1, action: 'updateTable', tableName: 'Item' });
      await server.request('POST', '/1/classes/Item', { body: { n: 1 } });
      await server.request('POST', '/1/classes/Item', { body: { n: 2 } });
      expect((await third.json()).data).toMatchObject({ n: 1 });
      expect((await third.json()).data).toMatchObject({ n: 2 });
      expect(subscribeCalls).toBe(2);
      second.ws.close();
    } finally {
      await server.close();
    }
  });
});
