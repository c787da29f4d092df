import { createRequire } from 'node:module';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { FakeClock } from '../../src/core/clock.js';
import { type Client, type RealtimeServer, RT_APP, connect, manualTicker, opened, startRealtimeServer } from './harness.js';

/** A client frame exactly as the SDK builds it: `5:::` + {name, args: [JSON string]}. */
function sdkFrame(name: string, payload: object): string {
  return `5:::${JSON.stringify({ name, args: [JSON.stringify(payload)] })}`;
}

/** Reads a server frame the way the SDK does: drop 4 characters, parse, parse args[0] again. */
function sdkRead(frame: string): { name: string; data: any } {
  const { name, args } = JSON.parse(frame.slice(4));
  return { name, data: JSON.parse(args[0]) };
}

async function handshake(server: RealtimeServer): Promise<string> {
  const res = await fetch(`${server.url}/socket.io/1/?t=${Date.now()}`, { headers: { 'content-type': 'text/plain' } });
  expect(res.status).toBe(200);
  const text = await res.text();
  expect(text).toMatch(/^[A-Za-z0-9_-]+:60:60:websocket$/);
  return text.split(':')[0]!;
}

async function sioClient(server: RealtimeServer): Promise<Client> {
  const sid = await handshake(server);
  const client = opened(await connect(`${server.wsUrl}/socket.io/1/websocket/${sid}?`));
  expect(await client.next()).toBe('1::');
  expect(sdkRead(await client.next())).toEqual({ name: 'client_send_data', data: {} });
  return client;
}

/** Sends a frame the server refuses and waits for its error event: every earlier frame was handled. */
async function barrier(client: Client): Promise<void> {
  client.send('barrier');
  expect(sdkRead(await client.next())).toMatchObject({ name: 'error', data: { code: 11160 } });
}

const sub = (action: string, tableName: string, objectId = '', appKey = RT_APP.applicationId) => sdkFrame('client_sub', { appKey, tableName, objectId, action });
const unsub = (action: string, tableName: string, objectId = '', appKey = RT_APP.applicationId) => sdkFrame('client_unsub', { appKey, tableName, objectId, action: `unsub_${action}` });

describe('realtime socket.io 0.9 framing (sdk-wire.md §7), raw frames', () => {
  let server: RealtimeServer;
  let client: Client;
  const clock = new FakeClock();
  const ticker = manualTicker();
  beforeEach(async () => {
    server = await startRealtimeServer({ clock, realtime: { ticker, heartbeatMs: 25_000, idleTimeoutMs: 60_000 } });
    client = await sioClient(server);
  });
  afterEach(async () => {
    client.ws.terminate();
    await server.close();
  });

  it('server_pub pushes for each action, data as a REST read; unsubscribe stops them', async () => {
    const id = (await server.request('POST', '/1/classes/GameScore', { body: { score: 1 } })).body.objectId;
    client.send(sub('updateTable', 'GameScore'));
    client.send(sub('updateRow', 'GameScore', id));
    client.send(sub('deleteRow', 'GameScore', id));
    client.send(sub('deleteTable', 'GameScore'));
    client.send(sub('updateTable', 'GameScore')); // twice: still one subscription
    await barrier(client);
    await server.request('PUT', `/1/classes/GameScore/${id}`, { body: { score: 2 } });
    const read = (await server.request('GET', `/1/classes/GameScore/${id}`)).body;
    const updates = [await client.next(), await client.next()];
    for (const frame of updates) expect(frame.startsWith('5:::{"name":"server_pub","args":["')).toBe(true);
    expect(updates.map((f) => sdkRead(f).data).sort((x, y) => x.action.localeCompare(y.action))).toEqual([
      { action: 'updateRow', tableName: 'GameScore', objectId: id, data: read },
      { action: 'updateTable', tableName: 'GameScore', objectId: id, data: read },
    ]);
    client.send(unsub('updateRow', 'GameScore', id));
    client.send(unsub('updateTable', 'GameScore'));
    await barrier(client);
    await server.request('DELETE', `/1/classes/GameScore/${id}`);
    const deletes = [sdkRead(await client.next()).data, sdkRead(await client.next()).data].map((d) => d.action).sort();
    expect(deletes).toEqual(['deleteRow', 'deleteTable']);
    await barrier(client); // no update push was queued after the unsubscribes
  });

  it('heartbeats are 2::: (the only form the SDK answers); a socket that never answers is cut', async () => {
    client.send(sub('updateTable', 'GameScore')); // a subscribed socket: the subscribe timeout does not apply
    await barrier(client);
    ticker.tick();
    expect(await client.next()).toBe('2:::');
    client.send('2:::');
    await barrier(client);
    clock.advance(50_000);
    ticker.tick();
    expect(await client.next()).toBe('2:::'); // silent for 50 s: under the 60 s timeout
    clock.advance(61_000);
    ticker.tick();
    expect((await client.closed).code).toBe(1006);
  });

  it('bad frames get coded error events and subscribe to nothing', async () => {
    const cases: Array<[string, number]> = [
      ['hello', 11160],
      ['5:::not json', 11160],
      ['5:::{"name":"dance","args":["{}"]}', 11160],
      ['5:::{"name":"client_sub","args":[{"appKey":"test-app"}]}', 11160],
      [sub('updateTable', 'GameScore', '', 'no-such-app'), 11160],
      [sub('fly', 'GameScore'), 11160],
      [sub('updateRow', 'GameScore'), 11160],
      [sub('updateTable', "x' OR 1=1"), 11160],
      [sub('updateTable', '_Session'), 11164],
      [unsub('updateTable', 'GameScore').replace('unsub_updateTable', 'updateTable'), 11160],
    ];
    for (const [frame, code] of cases) {
      client.send(frame);
      expect(sdkRead(await client.next()), frame).toMatchObject({ name: 'error', data: { code } });
    }
    await server.request('POST', '/1/classes/GameScore', { body: { score: 1 } });
    await barrier(client); // nothing was subscribed, so nothing was pushed
  });
});

describe('realtime socket.io framing: switches and paths', () => {
  it('an application with realtime off answers 11007; the path is configurable; false leaves it out', async () => {
    const server = await startRealtimeServer({
      applications: [RT_APP, { applicationId: 'off', restApiKey: 'r', masterKey: 'm' }],
      realtime: { socketIoPath: '/legacy/socket.io' },
    });
    expect((await fetch(`${server.url}/socket.io/1/?t=1`)).status).toBe(404);
    const text = await (await fetch(`${server.url}/legacy/socket.io/1/?t=1`)).text();
    const client = opened(await connect(`${server.wsUrl}/legacy/socket.io/1/websocket/${text.split(':')[0]}`));
    await client.next();
    await client.next();
    client.send(sub('updateTable', 'GameScore', '', 'off'));
    expect(sdkRead(await client.next())).toMatchObject({ name: 'error', data: { code: 11007 } });
    client.send(sub('updateTable', 'GameScore'));
    client.send(sub('updateTable', 'GameScore', '', 'off')); // one socket, one application
    expect(sdkRead(await client.next())).toMatchObject({ name: 'error', data: { code: 11007 } });
    client.ws.terminate();
    await server.close();
    const without = await startRealtimeServer({ realtime: { socketIoPath: false } });
    expect((await fetch(`${without.url}/socket.io/1/?t=1`)).status).toBe(404);
    await without.close();
  });
});

describe('realtime socket.io framing: connection limits', () => {
  it('sockets not yet bound to an application share a bounded pool; binding moves the socket to its application', async () => {
    const server = await startRealtimeServer({ realtime: { maxConnectionsPerApp: 1 } });
    const first = await sioClient(server);
    const refused = await connect(`${server.wsUrl}/socket.io/1/websocket/abc`);
    expect(refused).toMatchObject({ status: 429, body: { code: 11162 } });
    first.send(sub('updateTable', 'GameScore'));
    await barrier(first); // bound to test-app: the unbound pool is free again
    const second = await sioClient(server);
    second.send(sub('updateTable', 'GameScore'));
    expect(sdkRead(await second.next())).toMatchObject({ name: 'error', data: { code: 11162 } }); // test-app is full
    first.ws.close();
    await first.closed;
    second.send(sub('updateTable', 'GameScore'));
    await barrier(second);
    await server.request('POST', '/1/classes/GameScore', { body: { score: 1 } });
    expect(sdkRead(await second.next())).toMatchObject({ name: 'server_pub', data: { action: 'updateTable' } });
    second.ws.terminate();
    await server.close();
  });
});

/**
 * The official SDK's own src/lib/socket.js (hydrogen-js-sdk 2.7.3, unmodified) in Node: it only
 * needs the mini-program globals `wx.request` and `wx.*Socket*`, shimmed here over fetch and ws and
 * pointed at the test server instead of wss.bmobcloud.com.
 */
describe('the official SDK socket (hydrogen-js-sdk 2.7.3 src/lib/socket.js) against svcbase', () => {
  it('Bmob.Socket(appId): connects, subscribes with the four actions, receives every push', async () => {
    const server = await startRealtimeServer();
    const target = new URL(server.url);
    let socket: WebSocket | undefined;
    const handlers: Record<string, (arg?: unknown) => void> = {};
    const local = (url: string) => url.replace(/^https:\/\/wss\.bmobcloud\.com/, server.url).replace(/^wss:\/\/wss\.bmobcloud\.com/, `ws://${target.host}`);
    (globalThis as { wx?: unknown }).wx = {
      request(options: { method: string; url: string; header: Record<string, string>; success(res: unknown): void; fail(e: unknown): void }) {
        fetch(local(options.url), { method: options.method, headers: options.header })
          .then(async (res) => options.success({ statusCode: res.status, data: await res.text() }))
          .catch(options.fail);
      },
      connectSocket({ url }: { url: string }) {
        socket = new WebSocket(local(url));
        socket.on('open', () => handlers.open?.());
        socket.on('message', (data) => handlers.message?.({ data: String(data) }));
        socket.on('close', () => handlers.close?.());
        socket.on('error', (e) => handlers.error?.(e));
      },
      onSocketOpen: (fn: () => void) => (handlers.open = fn),
      onSocketError: (fn: () => void) => (handlers.error = fn),
      onSocketMessage: (fn: (m: unknown) => void) => (handlers.message = fn as (arg?: unknown) => void),
      onSocketClose: (fn: () => void) => (handlers.close = fn),
      sendSocketMessage: ({ data }: { data: string }) => socket?.send(data),
    };
    const quiet = { log: console.log, error: console.error };
    console.log = () => {}; // the SDK logs every connect
    try {
      const Socket = createRequire(import.meta.url)('hydrogen-js-sdk/src/lib/socket.js');
      const pushes: unknown[][] = [];
      const waiters: Array<() => void> = [];
      const push = (...args: unknown[]) => {
        pushes.push(args);
        waiters.shift()?.();
      };
      const nextPush = async () => {
        if (pushes.length === 0) await new Promise<void>((r) => waiters.push(r));
        return pushes.shift()!;
      };
      const sdk = new Socket(RT_APP.applicationId);
      const connected = new Promise<void>((resolve) => (sdk.onInitListen = resolve));
      sdk.onUpdateTable = (table: string, data: unknown) => push('updateTable', table, data);
      sdk.onUpdateRow = (table: string, objectId: string, data: unknown) => push('updateRow', table, objectId, data);
      sdk.onDeleteTable = (table: string, data: unknown) => push('deleteTable', table, data);
      sdk.onDeleteRow = (table: string, objectId: string, data: unknown) => push('deleteRow', table, objectId, data);
      await connected;

      const id = (await server.request('POST', '/1/classes/GameScore', { body: { score: 1 } })).body.objectId;
      sdk.updateTable('GameScore');
      sdk.updateRow('GameScore', id);
      sdk.deleteRow('GameScore', id);
      sdk.deleteTable('GameScore');
      sdk.updateTable('Marker');
      // Frames of one socket are handled in order: once a Marker push arrives, the four above are active.
      for (let i = 0; i < 50 && pushes.length === 0; i++) await server.request('POST', '/1/classes/Marker', { body: { i } });
      expect(pushes.length).toBeGreaterThan(0);
      pushes.length = 0;
      sdk.unsubUpdateTable('Marker');

      await server.request('PUT', `/1/classes/GameScore/${id}`, { body: { score: 2 } });
      const updates = [await nextPush(), await nextPush()].sort((a, b) => String(a[0]).localeCompare(String(b[0])));
      expect(updates[0]).toEqual(['updateRow', 'GameScore', id, expect.objectContaining({ objectId: id, score: 2 })]);
      expect(updates[1]).toEqual(['updateTable', 'GameScore', expect.objectContaining({ objectId: id, score: 2 })]);
      sdk.unsubUpdateRow('GameScore', id);
      sdk.unsubUpdateTable('GameScore');
      await server.request('DELETE', `/1/classes/GameScore/${id}`);
      const deletes = [await nextPush(), await nextPush()].sort((a, b) => String(a[0]).localeCompare(String(b[0])));
      expect(deletes[0]).toEqual(['deleteRow', 'GameScore', id, expect.objectContaining({ score: 2 })]);
      expect(deletes[1]).toEqual(['deleteTable', 'GameScore', expect.objectContaining({ score: 2 })]);
      sdk.unsubDeleteRow('GameScore', id);
      sdk.unsubDeleteTable('GameScore');
      sdk.initialize = () => {}; // no reconnect after the test closes the socket
      socket?.terminate();
    } finally {
      console.log = quiet.log;
      delete (globalThis as { wx?: unknown }).wx;
      await server.close();
    }
  });
});

describe('realtime socket.io framing: inbound budgets before parsing (issue 36, soak)', () => {
  it('an unbound socket draws on the unbound pool: past it, a malformed frame gets 11167 unread; once bound, on its application', async () => {
    const clock = new FakeClock();
    // Burst: 4 s of 1000 bytes/s; each 936-character frame costs 1000.
    const server = await startRealtimeServer({ clock, realtime: { ticker: manualTicker(), maxMessageBytes: 1000, maxInboundBytesPerAddress: 1000 } });
    const client = await sioClient(server);
    const frame = 'x'.repeat(936);
    for (let i = 0; i < 4; i++) client.send(frame);
    for (let i = 0; i < 4; i++) expect(sdkRead(await client.next())).toMatchObject({ name: 'error', data: { code: 11160 } });
    client.send(frame);
    expect(sdkRead(await client.next())).toMatchObject({ name: 'error', data: { code: 11167 } });
    clock.advance(1000);
    client.send(sub('updateTable', 'Game')); // binds the socket: from now on the application's bucket (full)
    await barrier(client);
    for (let i = 0; i < 4; i++) client.send(frame);
    for (let i = 0; i < 4; i++) expect(sdkRead(await client.next())).toMatchObject({ name: 'error', data: { code: 11160 } });
    client.send(frame);
    expect(sdkRead(await client.next())).toMatchObject({ name: 'error', data: { code: 11167 } });
    client.ws.terminate();
    await server.close();
  });
});
