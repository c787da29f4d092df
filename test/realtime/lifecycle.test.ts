import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import { memoryEventBus } from '../../src/events/memory-event-bus.js';
import type { Logger } from '../../src/core/logger.js';
import { jsonClient, manualTicker, startRealtimeServer, subscribe } from './harness.js';

describe('realtime heartbeats (fake clock, manual ticker: no sleeps)', () => {
  it('pings every connection; a peer silent past idleTimeoutMs is cut, one that answers stays', async () => {
    const clock = new FakeClock();
    const ticker = manualTicker();
    const server = await startRealtimeServer({ clock, realtime: { ticker, heartbeatMs: 10_000, idleTimeoutMs: 30_000 } });
    const alive = await jsonClient(server);
    const dead = await jsonClient(server, undefined, { autoPong: false });
    // Both subscribed: the subscribe timeout (30 s) does not apply, only the idle one.
    for (const c of [alive, dead]) await subscribe(c, { id: 'g', action: 'updateTable', tableName: 'GameScore' });
    const pings = { alive: 0, dead: 0 };
    alive.ws.on('ping', () => pings.alive++);
    dead.ws.on('ping', () => pings.dead++);
    for (let round = 0; round < 4; round++) {
      clock.advance(10_000);
      ticker.tick();
      // The client answers a ping before it emits it, so a round trip after the ping event orders the pong first.
      alive.send({ op: 'ping' });
      expect(await alive.json()).toEqual({ op: 'pong' });
    }
    expect(pings.alive).toBe(4);
    expect(pings.dead).toBeGreaterThanOrEqual(2);
    expect((await dead.closed).code).toBe(1006); // terminated at the tick after 30 s of silence
    expect(alive.ws.readyState).toBe(alive.ws.OPEN);
    alive.ws.terminate();
    await server.close();
  });
});

describe('realtime fan-out through an EventBus', () => {
  it('two services on one bus: a write on either reaches the subscribers of both, exactly once', async () => {
    const bus = memoryEventBus();
    const a = await startRealtimeServer({ realtime: { bus } });
    const b = await startRealtimeServer({ realtime: { bus } });
    const onA = await jsonClient(a);
    const onB = await jsonClient(b);
    for (const c of [onA, onB]) {
      await subscribe(c, { id: 'g', action: 'updateTable', tableName: 'GameScore' });
      await subscribe(c, { id: 'm', action: 'updateTable', tableName: 'Marker' });
    }
    const fromA = (await a.request('POST', '/1/classes/GameScore', { body: { score: 1 } })).body.objectId;
    const fromB = (await b.request('POST', '/1/classes/GameScore', { body: { score: 2 } })).body.objectId;
    await a.request('POST', '/1/classes/Marker', { body: { m: 1 } });
    for (const c of [onA, onB]) {
      const seen = [await c.json(), await c.json(), await c.json()];
      expect(seen.filter((e) => e.id === 'g').map((e) => e.objectId).sort()).toEqual([fromA, fromB].sort());
      expect(seen.filter((e) => e.id === 'm')).toHaveLength(1);
      c.send({ op: 'ping' });
      expect(await c.json()).toEqual({ op: 'pong' }); // nothing delivered twice
    }
    onA.ws.terminate();
    onB.ws.terminate();
    await a.close();
    await b.close();
    // A bus passed in is its owner's: closing the services left it usable.
    let got = '';
    await bus.subscribe('x', (m) => (got = m));
    await bus.publish('x', 'still open');
    await Promise.resolve();
    expect(got).toBe('still open');
  });

  it('an application with realtime off publishes nothing', async () => {
    const bus = memoryEventBus();
    const published: string[] = [];
    const spy = { ...bus, publish: (channel: string, message: string) => void published.push(channel) };
    const server = await startRealtimeServer({ applications: [{ applicationId: 'off', restApiKey: 'r', masterKey: 'm' }], realtime: { bus: spy } });
    await server.request('POST', '/1/classes/GameScore', { body: { score: 1 } });
    expect(published).toEqual([]);
    await server.close();
  });
});

describe('realtime slow consumers and shutdown', () => {
  it('a client that stops reading is cut once maxBufferedBytes are queued; memory stays bounded', async () => {
    const warnings: string[] = [];
    const logger: Logger = { debug() {}, info() {}, error() {}, warn: (message) => warnings.push(message) };
    const server = await startRealtimeServer({ logger, realtime: { maxBufferedBytes: 64 * 1024 } });
    const slow = await jsonClient(server);
    await subscribe(slow, { id: 't', action: 'updateTable', tableName: 'Big' });
    (slow.ws as unknown as { _socket: { pause(): void } })._socket.pause();
    const blob = 'x'.repeat(200 * 1024);
    for (let i = 0; i < 120 && warnings.length === 0; i++) {
      expect((await server.request('POST', '/1/classes/Big', { body: { blob } })).status).toBe(201);
    }
    expect(warnings).toContain('realtime: slow consumer cut');
    (slow.ws as unknown as { _socket: { resume(): void } })._socket.resume();
    expect((await slow.closed).code).toBe(1006);
    await server.close();
  });

  it('service.close() closes every socket with 1001', async () => {
    const server = await startRealtimeServer();
    const client = await jsonClient(server);
    const closing = server.close();
    expect(await client.closed).toEqual({ code: 1001, reason: 'server closing' });
    await closing;
  });
});
