import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import type { Logger } from '../../src/core/logger.js';
import { memoryEventHub } from '../../src/events/memory-event-bus.js';
import type { EventBus } from '../../src/events/port.js';
import { memoryStorage } from '../../src/memory.js';
import type { ServiceOptions } from '../../src/service.js';
import { type Client, RT_APP, type RealtimeServer, connect, jsonClient, manualTicker, opened, rtHeaders, startRealtimeServer, subscribe } from './harness.js';

/**
 * Regression (audit rt-revoked-session): a realtime connection resolved its session token once, at
 * the upgrade, and kept that user for as long as it stayed open, so a logout, a new password or an
 * administrator's revoke left it receiving records only that user may read while REST refused the
 * token (211). Now a session that ends (its `_Session` row deleted or changed) is announced on the
 * application's realtime channel, and every instance closes the connections signed in with it: the
 * client gets 211, then close 1008. A session that expires closes its connections at the next sweep.
 */
describe('realtime: a connection closes when the session it signed in with ends', () => {
  const servers: RealtimeServer[] = [];
  const clients: Client[] = [];
  afterEach(async () => {
    for (const c of clients.splice(0)) c.ws.terminate();
    for (const s of servers.splice(0)) await s.close();
  });

  const start = async (options: Partial<ServiceOptions> = {}) => {
    const server = await startRealtimeServer(options);
    servers.push(server);
    return server;
  };
  const signUp = async (server: RealtimeServer, username: string) => {
    const res = await server.request('POST', '/1/users', { body: { username, password: 'pw123456' } });
    expect(res.status).toBe(201);
    return res.body as { objectId: string; sessionToken: string };
  };
  const login = async (server: RealtimeServer, username: string, password = 'pw123456') => {
    const res = await server.request('POST', '/1/login', { body: { username, password } });
    expect(res.status).toBe(200);
    return (res.body as { sessionToken: string }).sessionToken;
  };
  /** A connection (with `token`, else anonymous) subscribed to every change of Diary. */
  const open = async (server: RealtimeServer, token?: string) => {
    const client = await jsonClient(server, rtHeaders(token ? { 'X-Svc-Session-Token': token } : {}));
    clients.push(client);
    await subscribe(client, { id: 'diary', tableName: 'Diary', action: 'updateTable' });
    return client;
  };
  const write = async (server: RealtimeServer, text: string, reader?: string) => {
    const res = await server.request('POST', '/1/classes/Diary', { auth: 'master', body: { text, ...(reader ? { ACL: { [reader]: { read: true } } } : {}) } });
    expect(res.status).toBe(201);
  };
  /** The client was told 211 and closed with 1008; nothing else came. */
  const expectEnded = async (client: Client) => {
    expect(await client.json()).toEqual({ op: 'error', code: 211, error: 'please log in: the session token is missing, unknown or expired.' });
    expect(await client.closed).toEqual({ code: 1008, reason: 'session ended: sign in again' });
    expect(client.pending()).toBe(0);
  };
  const capture = () => {
    const infos: Array<{ message: string; fields: unknown }> = [];
    const logger: Logger = { debug() {}, warn() {}, error() {}, info: (message, fields) => void infos.push({ message, fields }) };
    return { logger, infos };
  };

  it("an administrator's revoke (DELETE /1/users/:id/sessions) closes the user's connection before the next change reaches it; anonymous ones stay", async () => {
    const { logger, infos } = capture();
    const server = await start({ logger });
    const ann = await signUp(server, 'ann');
    const annC = await open(server, ann.sessionToken);
    const anon = await open(server);
    await write(server, 'before', ann.objectId);
    expect((await annC.json()).data.text).toBe('before');

    expect((await server.request('DELETE', `/1/users/${ann.objectId}/sessions`, { auth: 'master' })).body).toEqual({ revoked: 1 });
    await write(server, 'after', ann.objectId);
    await write(server, 'public');
    await expectEnded(annC);
    expect((await anon.json()).data.text).toBe('public');
    expect(infos).toContainEqual({ message: 'realtime: session ended; connection closed', fields: { applicationId: RT_APP.applicationId, user: ann.objectId } });
  });

  it('a logout closes that session\'s connection only; a new password closes the other sessions\' and keeps the one that set it', async () => {
    const server = await start();
    const ann = await signUp(server, 'ann');
    const second = await login(server, 'ann');
    const third = await login(server, 'ann');
    const keeps = await open(server, ann.sessionToken);
    const loggedOut = await open(server, second);
    const other = await open(server, third);

    expect((await server.request('POST', '/1/logout', { headers: { 'X-Svc-Session-Token': second } })).status).toBe(200);
    await expectEnded(loggedOut);
    const changed = await server.request('PUT', '/1/updatePassword', { headers: { 'X-Svc-Session-Token': ann.sessionToken }, body: { oldPassword: 'pw123456', newPassword: 'pw654321' } });
    expect(changed.status).toBe(200);
    await expectEnded(other);
    await write(server, 'still mine', ann.objectId);
    expect((await keeps.json()).data.text).toBe('still mine');
  });

  it('a revoke made through another instance closes the connection on this one (shared storage and bus)', async () => {
    const hub = memoryEventHub();
    const storage = memoryStorage();
    const a = await start({ storage, bus: hub.bus() });
    const b = await start({ storage, bus: hub.bus() });
    const ann = await signUp(a, 'ann');
    const onB = await open(b, ann.sessionToken);
    const anonOnB = await open(b);
    expect((await a.request('DELETE', `/1/users/${ann.objectId}/sessions`, { auth: 'master' })).body).toEqual({ revoked: 1 });
    await write(a, 'after', ann.objectId);
    await write(a, 'public');
    await expectEnded(onB);
    expect((await anonOnB.json()).data.text).toBe('public');
  });

  it('a session ended while its connection opened (before this instance listened to the application) is caught: the connection closes instead of greeting', async () => {
    const inner = memoryEventHub().bus();
    let release = () => {};
    let held: Promise<void> | undefined;
    // Subscriptions made while `held` is set wait for `release()`: the realtime channel is not listened to yet.
    const bus: EventBus = { publish: (c, m) => inner.publish(c, m), listened: (c) => inner.listened!(c), subscribe: async (c, l) => (await held, inner.subscribe(c, l)) };
    const server = await start({ bus });
    const ann = await signUp(server, 'ann');
    held = new Promise<void>((resolve) => (release = resolve));
    const client = opened(await connect(`${server.wsUrl}/1/realtime`, rtHeaders({ 'X-Svc-Session-Token': ann.sessionToken })));
    clients.push(client);
    // Revoked while the connection waits for its channel: no instance hears the announcement.
    expect((await server.request('DELETE', `/1/users/${ann.objectId}/sessions`, { auth: 'master' })).body).toEqual({ revoked: 1 });
    release();
    await expectEnded(client);
  });

  it('a session that expires closes its connection at the next sweep (fake clock)', async () => {
    const clock = new FakeClock();
    const ticker = manualTicker();
    const { logger, infos } = capture();
    const app = { ...RT_APP, settings: { features: { realtime: true }, users: { sessionTtlMs: 60_000 } } };
    const server = await start({ clock, logger, applications: [app], realtime: { ticker, idleTimeoutMs: 3_600_000 } });
    const ann = await signUp(server, 'ann');
    const annC = await open(server, ann.sessionToken);
    clock.advance(59_999);
    ticker.tick();
    await write(server, 'not yet', ann.objectId);
    expect((await annC.json()).data.text).toBe('not yet');
    clock.advance(1);
    ticker.tick();
    await expectEnded(annC);
    expect(infos).toContainEqual({ message: 'realtime: session expired; connection closed', fields: { applicationId: RT_APP.applicationId, user: ann.objectId } });
  });
});
