import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import type { EventBus } from '../../src/events/port.js';
import { memoryEventBus } from '../../src/events/memory-event-bus.js';
import { type Client, type RealtimeServer, connect, jsonClient, manualTicker, opened, rtHeaders, startRealtimeServer, subscribe } from './harness.js';

/**
 * Issue 36 (soak): a where-subscription flood from one address was refused only after each frame had
 * been JSON-parsed, canonicalised and costed, and each connection's waiting frames sat in an
 * unbounded promise chain. Frames are now weighed against shared inbound budgets and a per-connection
 * queue cap before anything parses them. Fake clock: buckets refill only when the test moves time.
 */

/** A frame of exactly `chars` characters: a ping padded with whitespace (valid JSON). */
const ping = (chars: number) => '{"op":"ping"}'.padEnd(chars, ' ');
/** A frame of exactly `chars` characters that any parser refuses (11160 once parsed). */
const garbage = (chars: number) => 'not json'.padEnd(chars, '!');
/** A second loopback address, so two clients count as two addresses (Linux routes all of 127/8). */
const OTHER_ADDRESS = { localAddress: '127.0.0.2' };
/** Each frame costs its length plus 64: a 936-character frame costs 1000. */
const COST_1000 = 936;

describe('realtime inbound budgets: frames are refused before they are parsed (issue 36, soak)', () => {
  let server: RealtimeServer;
  const clients: Client[] = [];
  const open = async (options = {}) => {
    const client = await jsonClient(server, rtHeaders(), options);
    clients.push(client);
    return client;
  };
  afterEach(async () => {
    for (const client of clients.splice(0)) client.ws.terminate();
    await server.close();
  });

  it("one address's connections share its budget; past it, invalid JSON gets 11167 (unread), not 11160; time refills it", async () => {
    const clock = new FakeClock();
    // Burst: 4 s of 1000 bytes/s = 4000, so four 1000-byte frames pass, from either connection.
    server = await startRealtimeServer({ clock, realtime: { ticker: manualTicker(), maxMessageBytes: 1000, maxInboundBytesPerAddress: 1000 } });
    const a = await open();
    const b = await open();
    for (const client of [a, b, a, b]) {
      client.send(ping(COST_1000));
      expect(await client.json()).toEqual({ op: 'pong' });
    }
    b.send(garbage(COST_1000));
    expect(await b.json()).toMatchObject({ op: 'error', code: 11167, error: expect.stringContaining('inbound bytes per second') });
    a.send(ping(COST_1000));
    expect(await a.json()).toMatchObject({ op: 'error', code: 11167 });
    clock.advance(1000); // one second refills 1000 bytes: the same frame is now read, and refused as JSON
    b.send(garbage(COST_1000));
    expect(await b.json()).toMatchObject({ op: 'error', code: 11160 });
    // Another address has a budget of its own.
    const c = await open(OTHER_ADDRESS);
    c.send(ping(COST_1000));
    expect(await c.json()).toEqual({ op: 'pong' });
  });

  it("an application's connections share its budget across addresses", async () => {
    const clock = new FakeClock();
    server = await startRealtimeServer({ clock, realtime: { ticker: manualTicker(), maxMessageBytes: 1000, maxInboundBytesPerApp: 1000 } });
    const a = await open();
    const b = await open(OTHER_ADDRESS);
    for (const client of [a, b, a, b]) {
      client.send(ping(COST_1000));
      expect(await client.json()).toEqual({ op: 'pong' });
    }
    b.send(ping(COST_1000));
    expect(await b.json()).toMatchObject({ code: 11167 });
    a.send(ping(COST_1000));
    expect(await a.json()).toMatchObject({ code: 11167 });
  });

  it('a connection that keeps flooding is closed with 1008', async () => {
    const clock = new FakeClock();
    server = await startRealtimeServer({ clock, realtime: { ticker: manualTicker(), maxMessageBytes: 1000, maxInboundBytesPerAddress: 1000 } });
    const flooder = await open();
    for (let i = 0; i < 4; i++) flooder.send(ping(COST_1000));
    for (let i = 0; i < 9; i++) flooder.send(garbage(COST_1000)); // refused unread: nine strikes
    const answers = [];
    for (let i = 0; i < 13; i++) answers.push(await flooder.json());
    expect(answers.filter((a) => a.op === 'pong')).toHaveLength(4);
    expect(answers.filter((a) => a.code === 11167)).toHaveLength(9);
    expect(flooder.pending()).toBe(0);
    flooder.send(garbage(COST_1000)); // the tenth: closed instead of answered
    expect(await flooder.closed).toEqual({ code: 1008, reason: 'too many refused messages' });
    expect(flooder.pending()).toBe(0);
  });

  it("a connection's waiting messages are capped: past maxQueuedMessages frames get 11167 at once", async () => {
    // The bus holds the first subscription, so the connection's first queued step (attach) waits.
    let open: () => void = () => {};
    const gate = new Promise<void>((resolve) => (open = resolve));
    const inner = memoryEventBus();
    const bus: EventBus = {
      publish: (channel, message) => inner.publish(channel, message),
      subscribe: async (channel, listener) => {
        await gate;
        return inner.subscribe(channel, listener);
      },
    };
    server = await startRealtimeServer({ clock: new FakeClock(), realtime: { ticker: manualTicker(), bus, maxQueuedMessages: 3 } });
    const client = opened(await connect(`${server.wsUrl}/1/realtime`, rtHeaders()));
    clients.push(client);
    for (let i = 0; i < 5; i++) client.send({ op: 'ping' });
    // Two refusals come back while the three admitted frames still wait.
    for (let i = 0; i < 2; i++) expect(await client.json()).toMatchObject({ code: 11167, error: expect.stringContaining('3 messages already wait') });
    open();
    expect(await client.json()).toMatchObject({ op: 'connected' });
    for (let i = 0; i < 3; i++) expect(await client.json()).toEqual({ op: 'pong' });
    client.send({ op: 'ping' }); // handled frames no longer count
    expect(await client.json()).toEqual({ op: 'pong' });
  });

  it('defaults: a normal client subscribing a few times a second never notices a neighbour flooding from another address', async () => {
    const clock = new FakeClock();
    server = await startRealtimeServer({ clock, realtime: { ticker: manualTicker() } });
    const flooder = await open(OTHER_ADDRESS);
    const normal = await open();
    const frame = garbage(16 * 1024 - 1); // costs 16 447
    const answers: number[] = [];
    let flooding = true;
    for (let second = 0; second < 5; second++) {
      // 20 frames of 16 KiB a second (the most one connection may send), each answer read before time moves.
      if (flooding) {
        for (let i = 0; i < 20; i++) flooder.send(frame);
        for (let i = 0; i < 20 && flooding; i++) {
          const message = await Promise.race([flooder.json(), flooder.closed.then(() => null)]);
          if (message === null) flooding = false;
          else answers.push(message.code);
        }
      }
      for (let i = 0; i < 4; i++) {
        const id = `s${second}-${i}`;
        await subscribe(normal, { id, tableName: 'Watched', where: { score: { $gte: second }, tag: { $in: ['a', 'b', 'c', id] } } });
      }
      normal.send({ op: 'unsubscribe', id: `s${second}-0` });
      expect(await normal.json()).toEqual({ op: 'unsubscribed', id: `s${second}-0` });
      clock.advance(1000);
    }
    // Its 4 s burst (15 frames) and then a second's refill (4 frames) are read, and refused as JSON;
    // the rest is dropped unread, and its tenth refusal closes it.
    // (Refusals are answered at once, read frames after the queue: compare counts, not order.)
    expect(answers.filter((code) => code === 11160)).toHaveLength(15 + 4);
    expect(answers.filter((code) => code === 11167)).toHaveLength(5 + 4);
    expect((await flooder.closed).code).toBe(1008);
  });
});
