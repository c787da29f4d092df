import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Client, type RealtimeServer, connect, jsonClient, opened, rtHeaders, startRealtimeServer, subscribe } from './harness.js';

describe('realtime JSON protocol: the seed\'s four actions', () => {
  let server: RealtimeServer;
  let client: Client;
  beforeEach(async () => {
    server = await startRealtimeServer();
    client = await jsonClient(server);
  });
  afterEach(async () => {
    client.ws.terminate();
    await server.close();
  });

  const create = async (table: string, body: object): Promise<string> => {
    const res = await server.request('POST', `/1/classes/${table}`, { body });
    expect(res.status).toBe(201);
    return res.body.objectId;
  };

  it('updateTable: every create and update of the table, data encoded as a REST read', async () => {
    await subscribe(client, { id: 1, action: 'updateTable', tableName: 'GameScore' });
    const id = await create('GameScore', { score: 1, when: { __type: 'Date', iso: '2026-01-02 03:04:05' } });
    const created = await client.json();
    const read = (await server.request('GET', `/1/classes/GameScore/${id}`)).body;
    expect(created).toEqual({ op: 'event', id: '1', action: 'updateTable', tableName: 'GameScore', objectId: id, data: read });
    await server.request('PUT', `/1/classes/GameScore/${id}`, { body: { score: { __op: 'Increment', amount: 2 } } });
    const updated = await client.json();
    expect(updated).toMatchObject({ action: 'updateTable', objectId: id, data: { score: 3 } });
    expect(typeof updated.data.updatedAt).toBe('string');
    await create('Other', { x: 1 }); // another table: nothing
    await server.request('DELETE', `/1/classes/GameScore/${id}`); // a delete is not an update
    await create('GameScore', { score: 9 });
    expect((await client.json()).data.score).toBe(9);
  });

  it('subscribers of one view share frames by id and action, and each gets the bytes JSON.stringify writes for its own id (issue 41)', async () => {
    const second = await jsonClient(server);
    const third = await jsonClient(server);
    try {
      await subscribe(client, { id: 1, action: 'updateTable', tableName: 'GameScore' });
      await subscribe(second, { id: 1, action: 'updateTable', tableName: 'GameScore' });
      await subscribe(third, { id: 'x:1', action: 'updateTable', tableName: 'GameScore' });
      await subscribe(third, { id: 1, where: { score: { $gte: 0 } }, tableName: 'GameScore' });
      const id = await create('GameScore', { score: 2 });
      const data = (await server.request('GET', `/1/classes/GameScore/${id}`)).body;
      const frame = (subscription: string, action: string) => JSON.stringify({ op: 'event', id: subscription, action, tableName: 'GameScore', objectId: id, data });
      expect(await client.next()).toBe(frame('1', 'updateTable'));
      expect(await second.next()).toBe(frame('1', 'updateTable'));
      expect([await third.next(), await third.next()].sort()).toEqual([frame('x:1', 'updateTable'), frame('1', 'create')].sort());
    } finally {
      second.ws.terminate();
      third.ws.terminate();
    }
  });

  it('updateRow: updates of that record only', async () => {
    const id = await create('GameScore', { score: 1 });
    const other = await create('GameScore', { score: 1 });
    await subscribe(client, { id: 'row', action: 'updateRow', tableName: 'GameScore', objectId: id });
    await server.request('PUT', `/1/classes/GameScore/${other}`, { body: { score: 5 } });
    await server.request('PUT', `/1/classes/GameScore/${id}`, { body: { score: 6 } });
    expect(await client.json()).toMatchObject({ id: 'row', action: 'updateRow', objectId: id, data: { score: 6, objectId: id } });
  });

  it('deleteRow and deleteTable: the record as it was', async () => {
    const id = await create('GameScore', { score: 4 });
    const other = await create('GameScore', { score: 5 });
    await subscribe(client, { id: 'dr', action: 'deleteRow', tableName: 'GameScore', objectId: id });
    await subscribe(client, { id: 'dt', action: 'deleteTable', tableName: 'GameScore' });
    await server.request('DELETE', `/1/classes/GameScore/${other}`);
    expect(await client.json()).toMatchObject({ id: 'dt', action: 'deleteTable', objectId: other, data: { score: 5 } });
    await server.request('DELETE', `/1/classes/GameScore/${id}`);
    const both = [await client.json(), await client.json()].sort((a, b) => a.id.localeCompare(b.id));
    expect(both).toMatchObject([
      { id: 'dr', action: 'deleteRow', objectId: id, data: { score: 4 } },
      { id: 'dt', action: 'deleteTable', objectId: id, data: { score: 4 } },
    ]);
  });

  it('unsubscribe stops the events and is acknowledged; an unknown id gets 11165', async () => {
    await subscribe(client, { id: 'a', action: 'updateTable', tableName: 'GameScore' });
    await subscribe(client, { id: 'b', action: 'updateTable', tableName: 'Marker' });
    client.send({ op: 'unsubscribe', id: 'a' });
    expect(await client.json()).toEqual({ op: 'unsubscribed', id: 'a' });
    await create('GameScore', { score: 1 });
    await create('Marker', { m: 1 }); // the barrier: events of one application arrive in write order
    expect(await client.json()).toMatchObject({ id: 'b', tableName: 'Marker' });
    client.send({ op: 'unsubscribe', id: 'a' });
    expect(await client.json()).toMatchObject({ op: 'error', id: 'a', code: 11165 });
  });

  it('batch: one event per item; a rolled-back transaction sends nothing', async () => {
    await subscribe(client, { id: 't', action: 'updateTable', tableName: 'GameScore' });
    const ok = await server.request('POST', '/1/batch', {
      body: { requests: [{ method: 'POST', path: '/1/classes/GameScore', body: { score: 1 } }, { method: 'POST', path: '/1/classes/GameScore', body: { score: 2 } }] },
    });
    expect(ok.status).toBe(200);
    expect([(await client.json()).data.score, (await client.json()).data.score]).toEqual([1, 2]);
    const failed = await server.request('POST', '/1/batch', {
      body: {
        transaction: true,
        requests: [
          { method: 'POST', path: '/1/classes/GameScore', body: { score: 3 } },
          { method: 'DELETE', path: '/1/classes/GameScore/missing000' },
        ],
      },
    });
    expect(failed.body.code).toBe(11070);
    await create('GameScore', { score: 4 }); // barrier
    expect((await client.json()).data.score).toBe(4);
  });

  it('many subscribers on one connection and across connections each get the event exactly once', async () => {
    const others = await Promise.all(Array.from({ length: 50 }, () => jsonClient(server)));
    await Promise.all(others.map((c, i) => subscribe(c, { id: i, action: 'updateTable', tableName: 'GameScore' })));
    await subscribe(client, { id: 'x', action: 'updateTable', tableName: 'GameScore' });
    await subscribe(client, { id: 'y', action: 'updateTable', tableName: 'GameScore' });
    const id = await create('GameScore', { score: 1 });
    await create('Marker', { m: 1 });
    for (const [i, c] of others.entries()) expect(await c.json()).toMatchObject({ id: String(i), objectId: id });
    expect([(await client.json()).id, (await client.json()).id].sort()).toEqual(['x', 'y']);
    for (const c of [client, ...others]) c.send({ op: 'ping' });
    for (const c of others) expect(await c.json()).toEqual({ op: 'pong' }); // nothing else was queued before
    expect(await client.json()).toEqual({ op: 'pong' });
    for (const c of others) c.ws.terminate();
  });
});

describe('realtime JSON protocol: where subscriptions (Parse LiveQuery events)', () => {
  let server: RealtimeServer;
  let client: Client;
  beforeEach(async () => {
    server = await startRealtimeServer();
    client = await jsonClient(server);
  });
  afterEach(async () => {
    client.ws.terminate();
    await server.close();
  });

  it('create, update, enter, leave and delete, matched by the reference evaluator', async () => {
    await subscribe(client, { id: 'q', tableName: 'GameScore', where: { score: { $gte: 100 }, player: { $in: ['ann', 'amy'] } } });
    const put = (id: string, body: object) => server.request('PUT', `/1/classes/GameScore/${id}`, { body });
    const low = (await server.request('POST', '/1/classes/GameScore', { body: { score: 5, player: 'ann' } })).body.objectId;
    const high = (await server.request('POST', '/1/classes/GameScore', { body: { score: 150, player: 'amy' } })).body.objectId;
    expect(await client.json()).toMatchObject({ id: 'q', action: 'create', objectId: high, data: { score: 150 } });
    await put(high, { score: 160 });
    expect(await client.json()).toMatchObject({ action: 'update', objectId: high, data: { score: 160 } });
    await put(low, { score: 120 });
    expect(await client.json()).toMatchObject({ action: 'enter', objectId: low, data: { score: 120 } });
    await put(low, { player: 'bob' });
    expect(await client.json()).toMatchObject({ action: 'leave', objectId: low, data: { player: 'bob' } });
    await put(low, { score: 130 }); // still not matching: nothing
    await server.request('DELETE', `/1/classes/GameScore/${high}`);
    expect(await client.json()).toMatchObject({ action: 'delete', objectId: high, data: { score: 160 } });
  });

  it('a where over a column the table did not have yet matches once the column appears', async () => {
    await subscribe(client, { id: 'late', tableName: 'Fresh', where: { level: { $gt: 2 } } });
    await server.request('POST', '/1/classes/Fresh', { body: { level: 1 } });
    await server.request('POST', '/1/classes/Fresh', { body: { level: 3 } });
    expect(await client.json()).toMatchObject({ id: 'late', action: 'create', data: { level: 3 } });
  });

  it('refuses inner queries (11169), secret columns (102) and bad operators (102)', async () => {
    client.send({ op: 'subscribe', id: 'iq', tableName: 'GameScore', where: { player: { $inQuery: { where: {}, className: '_User' } } } });
    expect(await client.json()).toMatchObject({ op: 'error', id: 'iq', code: 11169 });
    client.send({ op: 'subscribe', id: 'pw', tableName: '_User', where: { password: 'x' } });
    expect(await client.json()).toMatchObject({ op: 'error', id: 'pw', code: 102 });
    client.send({ op: 'subscribe', id: 'op', tableName: 'GameScore', where: { score: { $bogus: 1 } } });
    expect(await client.json()).toMatchObject({ op: 'error', id: 'op', code: 102 });
  });
});

describe('realtime JSON protocol: secrets, users and refusals', () => {
  let server: RealtimeServer;
  beforeEach(async () => {
    server = await startRealtimeServer({ realtime: { maxSubscriptionsPerConnection: 3, maxMessageBytes: 1024, maxMessagesPerSecond: 1000 } });
  });
  afterEach(() => server.close());

  it('_User events never carry the password; _Session cannot be subscribed to (11164)', async () => {
    const client = await jsonClient(server, rtHeaders({ 'X-Svc-Master-Key': 'test-master-key' }));
    await subscribe(client, { id: 'u', action: 'updateTable', tableName: '_User' });
    await subscribe(client, { id: 'd', action: 'deleteTable', tableName: '_User' });
    const signUp = await server.request('POST', '/1/users', { body: { username: 'ann', password: 'secret1' } });
    const created = await client.json();
    expect(created).toMatchObject({ id: 'u', objectId: signUp.body.objectId, data: { username: 'ann' } });
    expect(JSON.stringify(created)).not.toMatch(/password|secret1|sessionToken/);
    client.send({ op: 'subscribe', id: 's', action: 'updateTable', tableName: '_Session' });
    expect(await client.json()).toMatchObject({ op: 'error', id: 's', code: 11164 });
    client.ws.terminate();
  });

  it('a session token in the upgrade request names the user; a bad one is refused with 211', async () => {
    const signUp = await server.request('POST', '/1/users', { body: { username: 'bob', password: 'secret1' } });
    const ws = opened(await connect(`${server.wsUrl}/1/realtime`, rtHeaders({ 'X-Svc-Session-Token': signUp.body.sessionToken })));
    expect(await ws.json()).toEqual({ op: 'connected', applicationId: 'test-app', user: signUp.body.objectId });
    ws.ws.terminate();
    const refused = await connect(`${server.wsUrl}/1/realtime`, rtHeaders({ 'X-Svc-Session-Token': 'r:nope' }));
    expect(refused).toMatchObject({ status: 400, body: { code: 211 } });
  });

  it('bad frames get coded errors and write nothing', async () => {
    const client = await jsonClient(server);
    const cases: Array<[unknown, number]> = [
      ['not json', 11160],
      ['[1,2]', 11160],
      [{ op: 'dance' }, 11160],
      [{ op: 'subscribe', id: 1, tableName: 'T' }, 11160],
      [{ op: 'subscribe', id: 1, tableName: 'T', action: 'updateRow' }, 11160],
      [{ op: 'subscribe', id: 1, tableName: 'T', action: 'updateTable', objectId: 'x' }, 11160],
      [{ op: 'subscribe', id: 1, tableName: "T'; DROP TABLE x;--", action: 'updateTable' }, 11160],
      [{ op: 'subscribe', id: 1, tableName: 'T', action: 'updateTable', where: {} }, 11160],
      [{ op: 'subscribe', id: 1, tableName: 'T', where: [] }, 11160],
      [{ op: 'subscribe', id: { a: 1 }, tableName: 'T', action: 'updateTable' }, 11160],
      ['{"op":"subscribe","id":1,"tableName":"T","action":"updateTable","__proto__":{"x":1}}', 11160],
      // Extra fields are refused (docs/realtime.md), so a misspelt `wehre` cannot widen a subscription unnoticed.
      [{ op: 'subscribe', id: 1, tableName: 'T', action: 'updateTable', bogus: 1 }, 11160],
      [{ op: 'subscribe', id: 1, tableName: 'T', action: 'updateTable', wehre: { a: 1 } }, 11160],
      [{ op: 'unsubscribe', id: 1, tableName: 'T' }, 11160],
      [{ op: 'ping', x: 1 }, 11160],
    ];
    for (const [message, code] of cases) {
      client.send(message);
      expect((await client.json()).code, JSON.stringify(message)).toBe(code);
    }
    client.ws.send(Buffer.from('{"op":"ping"}'), { binary: true });
    expect(await client.json()).toMatchObject({ op: 'error', code: 11160 });
    await subscribe(client, { id: 'a', action: 'updateTable', tableName: 'A' });
    client.send({ op: 'subscribe', id: 'a', action: 'updateTable', tableName: 'B' });
    expect(await client.json()).toMatchObject({ id: 'a', code: 11168 });
    await subscribe(client, { id: 'b', action: 'updateTable', tableName: 'B' });
    await subscribe(client, { id: 'c', action: 'updateTable', tableName: 'C' });
    client.send({ op: 'subscribe', id: 'd', action: 'updateTable', tableName: 'D' });
    expect(await client.json()).toMatchObject({ id: 'd', code: 11161 });
    expect((await server.request('GET', '/1/classes/T')).body.results).toEqual([]);
    client.send('x'.repeat(2000)); // over maxMessageBytes: the socket is closed with 1009
    expect((await client.closed).code).toBe(1009);
  });

  it('refusals before the upgrade: no credentials 401, realtime off 11007, unknown path 404', async () => {
    expect(await connect(`${server.wsUrl}/1/realtime`, {})).toMatchObject({ status: 401 });
    const off = await startRealtimeServer({ applications: [{ applicationId: 'off', restApiKey: 'r', masterKey: 'm' }] });
    expect(await connect(`${off.wsUrl}/1/realtime`, { 'X-Svc-Application-Id': 'off', 'X-Svc-REST-API-Key': 'r' })).toMatchObject({ status: 403, body: { code: 11007 } });
    await off.close();
    expect(await connect(`${server.wsUrl}/1/realtimex`, rtHeaders())).toMatchObject({ status: 404 });
  });
});

describe('realtime JSON protocol: rate and connection limits', () => {
  it('messages past the per-second allowance get 11167', async () => {
    const server = await startRealtimeServer({ realtime: { maxMessagesPerSecond: 3 } });
    const client = await jsonClient(server);
    for (let i = 0; i < 5; i++) client.send({ op: 'ping' });
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await client.json());
    expect(answers.filter((a) => a.op === 'pong')).toHaveLength(3);
    expect(answers.filter((a) => a.code === 11167)).toHaveLength(2);
    client.ws.terminate();
    await server.close();
  });

  it('connections per application are bounded (11162); a closed socket frees its slot', async () => {
    const server = await startRealtimeServer({ realtime: { maxConnectionsPerApp: 2, maxConnectionsPerAddress: 2 } });
    const a = await jsonClient(server);
    const b = await jsonClient(server);
    expect(await connect(`${server.wsUrl}/1/realtime`, rtHeaders())).toMatchObject({ status: 429, body: { code: 11162 } });
    b.ws.close();
    await b.closed;
    const c = await jsonClient(server);
    a.ws.terminate();
    c.ws.terminate();
    await server.close();
  });
});
