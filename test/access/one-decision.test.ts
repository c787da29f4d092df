import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BeforeSaveContext } from '../../src/events/write-hook-types.js';
import { type Client, type RealtimeServer, RT_APP, connect, jsonClient, opened, rtHeaders, startRealtimeServer, subscribe } from '../realtime/harness.js';

/**
 * Issue 35, items 1-7: every reader asks access/ the same question, so realtime, include and inner
 * queries reveal exactly what REST does; roles are never public-write; a batch item's caller is the
 * one its hooks see. Each case was reproduced on 78809da over real HTTP and WebSockets.
 */
describe('one access decision for every reader (issue 35)', () => {
  let server: RealtimeServer;
  const clients: Client[] = [];
  const hookCallers: Array<string | null> = [];
  let ann = { objectId: '', sessionToken: '' };
  let bob = { objectId: '', sessionToken: '' };

  const as = (token: string | null, method: string, path: string, body?: unknown) =>
    server.request(method, path, { body, headers: token ? { 'X-Svc-Session-Token': token } : {} });
  const master = (method: string, path: string, body?: unknown) => server.request(method, path, { body, auth: 'master' });
  const where = (value: unknown) => `where=${encodeURIComponent(JSON.stringify(value))}`;
  const pointer = (className: string, objectId: string) => ({ __type: 'Pointer', className, objectId });
  const signUp = async (username: string) => (await server.request('POST', '/1/users', { body: { username, password: 'pw' } })).body as typeof ann;
  const client = async (headers = rtHeaders()) => {
    const c = await jsonClient(server, headers);
    clients.push(c);
    return c;
  };
  /** Sends a subscribe and answers the server's reply (an acknowledgement or an error). */
  const trySubscribe = async (c: Client, message: Record<string, unknown>) => {
    c.send({ op: 'subscribe', ...message });
    return c.json();
  };

  beforeAll(async () => {
    server = await startRealtimeServer({
      hooks: {
        Note: {
          beforeSave: async (ctx: BeforeSaveContext) => {
            hookCallers.push(ctx.caller ? ((await ctx.caller.user())?.objectId ?? 'anonymous') : null);
          },
        },
      },
    });
    ann = await signUp('ann');
    bob = await signUp('bob');
    // Vault: a table only the master key may get or find.
    await master('POST', '/1/classes/Vault', { code: 'v-1' });
    await master('PUT', '/1/schemas/Vault', { classLevelPermissions: { get: {}, find: {}, count: {} } });
    // Card: open, but its `pin` is protected from everyone but the master key.
    await master('POST', '/1/classes/Card', { label: 'c-1', pin: '0000' });
    await master('PUT', '/1/schemas/Card', { classLevelPermissions: { protectedFields: { '*': ['pin'] } } });
  });
  afterAll(async () => {
    for (const c of clients.splice(0)) c.ws.terminate();
    await server.close();
  });

  it('1. realtime refuses a subscription to a table REST refuses to find (JSON protocol and socket.io), with find\'s code', async () => {
    const rest = await as(null, 'GET', '/1/classes/Vault');
    expect([rest.status, rest.body.code]).toEqual([403, 11171]);
    const anon = await client();
    expect(await trySubscribe(anon, { id: 'v', action: 'updateTable', tableName: 'Vault' })).toMatchObject({ op: 'error', id: 'v', code: 11171 });
    const signedIn = await client(rtHeaders({ 'X-Svc-Session-Token': ann.sessionToken }));
    expect(await trySubscribe(signedIn, { id: 'v', where: { code: 'v-2' }, tableName: 'Vault' })).toMatchObject({ op: 'error', code: 11171 });
    // The SDK's socket.io framing, with the application id alone.
    const handshake = await (await fetch(`${server.url}/socket.io/1/?t=1`)).text();
    const sio = opened(await connect(`${server.wsUrl}/socket.io/1/websocket/${handshake.split(':')[0]}`));
    clients.push(sio);
    await sio.next();
    await sio.next();
    sio.send(`5:::${JSON.stringify({ name: 'client_sub', args: [JSON.stringify({ appKey: RT_APP.applicationId, tableName: 'Vault', objectId: '', action: 'updateTable' })] })}`);
    const frame = JSON.parse((await sio.next()).slice(4));
    expect([frame.name, JSON.parse(frame.args[0]).code]).toEqual(['error', 11171]);
    // The master key subscribes, and a new row reaches it only.
    const owner = await client(rtHeaders({ 'X-Svc-Master-Key': 'test-master-key' }));
    await subscribe(owner, { id: 'v', action: 'updateTable', tableName: 'Vault' });
    await master('POST', '/1/classes/Vault', { code: 'v-2' });
    expect((await owner.json()).data.code).toBe('v-2');
  });

  it('1. a subscriber stops receiving a table once its permissions close it', async () => {
    await master('POST', '/1/classes/Diary', { day: 0 });
    const anon = await client();
    await subscribe(anon, { id: 'd', action: 'updateTable', tableName: 'Diary' });
    await master('PUT', '/1/schemas/Diary', { classLevelPermissions: { find: {}, get: {} } });
    await master('POST', '/1/classes/Diary', { day: 1 });
    // A later public event on another table proves nothing of Diary was queued before it.
    await subscribe(anon, { id: 'p', action: 'updateTable', tableName: 'Plain' });
    await master('POST', '/1/classes/Plain', { n: 1 });
    expect(await anon.json()).toMatchObject({ op: 'event', id: 'p', data: { n: 1 } });
  });

  it('2. realtime hides protected fields from events and refuses a where naming one, as REST does', async () => {
    const rest = await as(null, 'GET', `/1/classes/Card?${where({ pin: '0000' })}`);
    expect(rest.body.code).toBe(102);
    const anon = await client();
    expect(await trySubscribe(anon, { id: 'w', where: { pin: '0000' }, tableName: 'Card' })).toMatchObject({ op: 'error', code: 102 });
    await subscribe(anon, { id: 'c', action: 'updateTable', tableName: 'Card' });
    await subscribe(anon, { id: 'l', where: { label: 'c-2' }, tableName: 'Card' });
    const owner = await client(rtHeaders({ 'X-Svc-Master-Key': 'test-master-key' }));
    await subscribe(owner, { id: 'c', action: 'updateTable', tableName: 'Card' });
    await master('POST', '/1/classes/Card', { label: 'c-2', pin: '1234' });
    const events = [await anon.json(), await anon.json()];
    for (const event of events) {
      expect(event.data.label).toBe('c-2');
      expect(event.data).not.toHaveProperty('pin');
    }
    expect((await owner.json()).data.pin).toBe('1234');
  });

  it('3. realtime refuses master-only system tables to everyone but the master key; _Session to everyone', async () => {
    const anon = await client(rtHeaders({ 'X-Svc-Session-Token': bob.sessionToken }));
    for (const tableName of ['_CloudCode', '_Installation', '_ClassPermissions', '_AuthLink', '_Anything']) {
      expect([tableName, await trySubscribe(anon, { id: tableName, action: 'updateTable', tableName })]).toMatchObject([tableName, { op: 'error', code: 11006 }]);
    }
    expect(await trySubscribe(anon, { id: 's', action: 'updateTable', tableName: '_Session' })).toMatchObject({ op: 'error', code: 11164 });
    const owner = await client(rtHeaders({ 'X-Svc-Master-Key': 'test-master-key' }));
    expect(await trySubscribe(owner, { id: 's', action: 'updateTable', tableName: '_Session' })).toMatchObject({ op: 'error', code: 11164 });
    await subscribe(owner, { id: 'cp', action: 'updateTable', tableName: '_ClassPermissions' });
    await master('PUT', '/1/schemas/Card', { classLevelPermissions: { protectedFields: { '*': ['pin'] }, addField: {} } });
    expect((await owner.json()).data.className).toBe('Card');
  });

  it('4. include leaves a Pointer into a table whose get is closed unexpanded: lists, single GETs, arrays of pointers', async () => {
    const vault = (await master('GET', '/1/classes/Vault')).body.results[0].objectId as string;
    const ref = await master('POST', '/1/classes/Box', { one: pointer('Vault', vault), many: [pointer('Vault', vault)] });
    const list = await as(ann.sessionToken, 'GET', '/1/classes/Box?include=one,many');
    expect(list.body.results[0].one).toEqual(pointer('Vault', vault));
    expect(list.body.results[0].many).toEqual([pointer('Vault', vault)]);
    const single = await as(null, 'GET', `/1/classes/Box/${ref.body.objectId}?include=one,many`);
    expect(single.body.one).toEqual(pointer('Vault', vault));
    expect(single.body.many).toEqual([pointer('Vault', vault)]);
    const byMaster = await master('GET', `/1/classes/Box/${ref.body.objectId}?include=one`);
    expect(byMaster.body.one).toMatchObject({ __type: 'Object', code: 'v-1' });
  });

  it('5. an inner query over a table the caller may not find answers as that find does (11171), in every form', async () => {
    const vault = { className: 'Vault', where: { code: { $gte: 'v' } } };
    for (const clause of [
      { one: { $inQuery: vault } },
      { one: { $notInQuery: vault } },
      { code: { $select: { query: vault, key: 'code' } } },
      { code: { $dontSelect: { query: vault, key: 'code' } } },
      { $or: [{ x: 1 }, { one: { $inQuery: { className: 'Box', where: { one: { $inQuery: vault } } } } }] },
    ]) {
      const res = await as(null, 'GET', `/1/classes/Box?${where(clause)}`);
      expect([JSON.stringify(clause), res.status, res.body.code]).toEqual([JSON.stringify(clause), 403, 11171]);
      const count = await as(ann.sessionToken, 'GET', `/1/classes/Box?${where(clause)}&count=1&limit=0`);
      expect(count.body.code).toBe(11171);
    }
    // The master key runs them.
    expect((await master('GET', `/1/classes/Box?${where({ one: { $inQuery: vault } })}`)).body.results).toHaveLength(1);
  });

  it('6. a role created without an ACL is publicly readable and writable by the master key only', async () => {
    const role = await master('POST', '/1/roles', { name: 'Editors' });
    expect(role.status).toBe(201);
    expect((await as(null, 'GET', `/1/roles/${role.body.objectId}`)).body.ACL).toEqual({ '*': { read: true } });
    const join = { users: { __op: 'AddRelation', objects: [pointer('_User', ann.objectId)] } };
    expect((await as(ann.sessionToken, 'PUT', `/1/roles/${role.body.objectId}`, join)).body.code).toBe(101);
    expect((await as(null, 'PUT', `/1/roles/${role.body.objectId}`, join)).body.code).toBe(101);
    expect((await as(ann.sessionToken, 'PUT', `/1/classes/_Role/${role.body.objectId}`, join)).body.code).toBe(101);
    // Nothing was written: the role has no member.
    const members = await master('GET', `/1/users?${where({ $relatedTo: { object: pointer('_Role', role.body.objectId), key: 'users' } })}`);
    expect(members.body.results).toEqual([]);
    // A role stored without any ACL (imported, older) is master-write too.
    await master('PUT', `/1/roles/${role.body.objectId}`, { ACL: null });
    expect((await as(ann.sessionToken, 'PUT', `/1/roles/${role.body.objectId}`, join)).body.code).toBe(101);
    expect((await master('PUT', `/1/roles/${role.body.objectId}`, join)).status).toBe(200);
  });

  it("7. a batch item's own session token is the caller its hooks see", async () => {
    hookCallers.length = 0;
    const res = await as(ann.sessionToken, 'POST', '/1/batch', {
      requests: [
        { method: 'POST', path: '/1/classes/Note', body: { by: 'ann' } },
        { method: 'POST', path: '/1/classes/Note', body: { by: 'bob' }, token: bob.sessionToken },
      ],
    });
    expect(res.body.map((item: { success?: unknown }) => 'success' in item)).toEqual([true, true]);
    expect(hookCallers).toEqual([ann.objectId, bob.objectId]);
    // Outside a batch, the request's caller; the master key without a user is anonymous.
    await as(bob.sessionToken, 'POST', '/1/classes/Note', { by: 'bob' });
    await master('POST', '/1/classes/Note', { by: 'master' });
    expect(hookCallers.slice(2)).toEqual([bob.objectId, 'anonymous']);
  });
});
