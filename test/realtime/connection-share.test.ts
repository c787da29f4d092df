import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import type { Logger } from '../../src/core/logger.js';
import { addressGroup } from '../../src/realtime/address-group.js';
import { resolveRealtimeLimits } from '../../src/realtime/options.js';
import { type Client, type RealtimeServer, connect, jsonClient, manualTicker, opened, rtHeaders, startRealtimeServer, subscribe } from './harness.js';

// Issue 36, item 8: one client held all 1,000 realtime connections of an application for over 70 s,
// and every other client got 429. Clients here differ by their loopback source address (127.0.0.x).

const from = (address: string) => ({ localAddress: address });

async function sioSocket(server: RealtimeServer, address = '127.0.0.1'): Promise<Client | { status: number; body: any }> {
  const sid = (await (await fetch(`${server.url}/socket.io/1/?t=1`)).text()).split(':')[0];
  return connect(`${server.wsUrl}/socket.io/1/websocket/${sid}`, {}, from(address));
}

/** Reads a socket.io frame the way the SDK does. */
function sdkRead(frame: string): { name: string; data: any } {
  const { name, args } = JSON.parse(frame.slice(4));
  return { name, data: JSON.parse(args[0]) };
}

const sdkSub = (tableName: string) => `5:::${JSON.stringify({ name: 'client_sub', args: [JSON.stringify({ appKey: 'test-app', tableName, objectId: '', action: 'updateTable' })] })}`;

describe('realtime: a per-client-address share of an application\'s connection slots', () => {
  it('by default one address gets a tenth of the slots (11163 past it); other addresses still get in', async () => {
    const server = await startRealtimeServer({ realtime: { maxConnectionsPerApp: 20 } }); // share: 2
    const greedy = [await jsonClient(server, rtHeaders(), from('127.0.0.1')), await jsonClient(server, rtHeaders(), from('127.0.0.1'))];
    expect(await connect(`${server.wsUrl}/1/realtime`, rtHeaders(), from('127.0.0.1'))).toMatchObject({ status: 429, body: { code: 11163 } });
    // Another client is not locked out by the first one.
    const other = await jsonClient(server, rtHeaders(), from('127.0.0.2'));
    await subscribe(other, { id: 'g', action: 'updateTable', tableName: 'GameScore' });
    // A closed socket gives its share back.
    greedy[0]!.ws.close();
    await greedy[0]!.closed;
    const again = await jsonClient(server, rtHeaders(), from('127.0.0.1'));
    for (const c of [greedy[1]!, other, again]) c.ws.terminate();
    await server.close();
  });

  it('the application limit still holds across addresses (11162); the share is configurable', async () => {
    const server = await startRealtimeServer({ realtime: { maxConnectionsPerApp: 3, maxConnectionsPerAddress: 2 } });
    const clients = [
      await jsonClient(server, rtHeaders(), from('127.0.0.1')),
      await jsonClient(server, rtHeaders(), from('127.0.0.1')),
      await jsonClient(server, rtHeaders(), from('127.0.0.2')),
    ];
    expect(await connect(`${server.wsUrl}/1/realtime`, rtHeaders(), from('127.0.0.3'))).toMatchObject({ status: 429, body: { code: 11162 } });
    for (const c of clients) c.ws.terminate();
    await server.close();
  });

  it('socket.io: unbound sockets and bound ones are shared per address too', async () => {
    const server = await startRealtimeServer({ realtime: { maxConnectionsPerApp: 4, maxConnectionsPerAddress: 1 } });
    const first = opened(await sioSocket(server, '127.0.0.1'));
    // The unbound pool: one socket per address.
    expect(await sioSocket(server, '127.0.0.1')).toMatchObject({ status: 429, body: { code: 11163 } });
    const second = opened(await sioSocket(server, '127.0.0.2'));
    await first.next();
    await first.next();
    first.send(sdkSub('GameScore')); // binds first to test-app: its unbound share is free again
    first.send('barrier');
    expect(sdkRead(await first.next())).toMatchObject({ name: 'error', data: { code: 11160 } });
    const third = opened(await sioSocket(server, '127.0.0.1'));
    await third.next();
    await third.next();
    third.send(sdkSub('GameScore')); // 127.0.0.1 already holds its one test-app slot
    expect(sdkRead(await third.next())).toMatchObject({ name: 'error', data: { code: 11163 } });
    for (const c of [first, second, third]) c.ws.terminate();
    await server.close();
  });

  it('without a client address the share is skipped and the logger told once', async () => {
    const warnings: string[] = [];
    const logger: Logger = { debug() {}, info() {}, warn: (message) => void warnings.push(message), error() {} };
    const server = await startRealtimeServer({ logger, realtime: { maxConnectionsPerApp: 3, maxConnectionsPerAddress: 1 } });
    // A host that passes no address: the upgrade hook sees none.
    server.server.removeAllListeners('upgrade');
    server.server.on('upgrade', (req, socket, head) => {
      Object.defineProperty(req.socket, 'remoteAddress', { value: undefined });
      void server.service.handleUpgrade(req, socket, head);
    });
    const clients = [await jsonClient(server), await jsonClient(server)];
    expect(warnings.filter((w) => w.includes('realtime.maxConnectionsPerAddress'))).toHaveLength(1);
    for (const c of clients) c.ws.terminate();
    await server.close();
  });

  it('IPv6 addresses count by their /64; IPv4 in its ::ffff: spelling is the IPv4 address', () => {
    expect(addressGroup('2001:db8:0:1::5')).toBe('2001:db8:0:1::/64');
    expect(addressGroup('2001:0db8:0000:0001:ffff:0:0:9')).toBe('2001:db8:0:1::/64');
    expect(addressGroup('::1')).toBe('0:0:0:0::/64');
    expect(addressGroup('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(addressGroup('64:ff9b::192.0.2.1')).toBe('64:ff9b:0:0::/64');
    expect(addressGroup('::ffff:10.1.2.3')).toBe('10.1.2.3');
    expect(addressGroup('10.1.2.3')).toBe('10.1.2.3');
    expect(resolveRealtimeLimits({}).maxConnectionsPerAddress).toBe(100);
    expect(resolveRealtimeLimits({ maxConnectionsPerApp: 5 }).maxConnectionsPerAddress).toBe(1);
    expect(() => resolveRealtimeLimits({ maxConnectionsPerAddress: 0 })).toThrow(/maxConnectionsPerAddress/);
  });
});

describe('realtime: connections that never subscribe are closed (subscribeTimeoutMs)', () => {
  it('JSON protocol: closed with 1008 at the timeout; a subscribed connection stays; the slot is freed', async () => {
    const clock = new FakeClock();
    const ticker = manualTicker();
    const server = await startRealtimeServer({ clock, realtime: { ticker, maxConnectionsPerApp: 2, maxConnectionsPerAddress: 2, subscribeTimeoutMs: 30_000 } });
    const idle = await jsonClient(server);
    const busy = await jsonClient(server);
    await subscribe(busy, { id: 'g', action: 'updateTable', tableName: 'GameScore' });
    clock.advance(29_999);
    ticker.tick();
    busy.send({ op: 'ping' });
    expect(await busy.json()).toEqual({ op: 'pong' });
    expect(idle.ws.readyState).toBe(idle.ws.OPEN);
    clock.advance(1);
    ticker.tick();
    expect(await idle.closed).toEqual({ code: 1008, reason: 'no subscription within 30000 ms' });
    const next = await jsonClient(server); // the slot came back
    expect(busy.ws.readyState).toBe(busy.ws.OPEN);
    for (const c of [busy, next]) c.ws.terminate();
    await server.close();
  });

  it('socket.io: a socket that never names its application with a subscription is closed and frees the unbound pool', async () => {
    const clock = new FakeClock();
    const ticker = manualTicker();
    const server = await startRealtimeServer({ clock, realtime: { ticker, maxConnectionsPerApp: 1, subscribeTimeoutMs: 10_000 } });
    const silent = opened(await sioSocket(server));
    expect(await sioSocket(server, '127.0.0.2')).toMatchObject({ status: 429, body: { code: 11162 } }); // the unbound pool is full
    silent.send('2::'); // answering heartbeats keeps a socket alive, but is not a subscription
    clock.advance(10_000);
    ticker.tick();
    expect((await silent.closed).code).toBe(1008);
    const next = opened(await sioSocket(server, '127.0.0.2'));
    next.ws.terminate();
    await server.close();
  });
});
