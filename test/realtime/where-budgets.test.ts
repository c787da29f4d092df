import { afterEach, describe, expect, it } from 'vitest';
import type { RealtimeOptions } from '../../src/realtime/options.js';
import { type Client, RT_APP, type RealtimeServer, jsonClient, startRealtimeServer, subscribe } from './harness.js';

/** A where of cost 1 + `n` (one `$in` of n values), distinct per `salt`. */
const inWhere = (n: number, salt = 0) => ({ tag: { $in: Array.from({ length: n }, (_, k) => `v${k}-${salt}`) } });

/** The heavy where: a 900-value `$in` plus a regex (cost 1 + 900 + 10 + 9 = 920). */
const heavyWhere = (salt: number) => ({ tag: { $in: Array.from({ length: 900 }, (_, k) => `v${k}-${salt}`) }, name: { $regex: `^h.*o${String(salt).padStart(4, '0')}` } });

describe('realtime where budgets (issue 36 item 7)', () => {
  let server: RealtimeServer;
  const clients: Client[] = [];
  const start = async (realtime: RealtimeOptions = {}) => {
    server = await startRealtimeServer({
      applications: [{ ...RT_APP, settings: { features: { realtime: true, regex: true } } }],
      realtime: { maxMessagesPerSecond: 10_000, ...realtime },
    });
  };
  const client = async () => {
    const opened = await jsonClient(server);
    clients.push(opened);
    return opened;
  };
  afterEach(async () => {
    for (const open of clients.splice(0)) open.ws.terminate();
    await server.close();
  });

  it('a connection past maxWhereCostPerConnection (default 5000) gets 11166 and holds nothing more; unsubscribing frees its share', async () => {
    await start();
    const ws = await client();
    for (let i = 0; i < 5; i++) await subscribe(ws, { id: i, tableName: 'Hot', where: heavyWhere(i) });
    ws.send({ op: 'subscribe', id: 5, tableName: 'Hot', where: heavyWhere(5) });
    const refused = await ws.json();
    expect(refused).toMatchObject({ op: 'error', id: '5', code: 11166 });
    expect(refused.error).toBe("where subscription refused: this connection's where subscriptions would cost 5520, over maxWhereCostPerConnection 5000.");
    ws.send({ op: 'unsubscribe', id: 5 });
    expect(await ws.json()).toMatchObject({ op: 'error', id: '5', code: 11165 });
    // Action subscriptions cost nothing against it.
    await subscribe(ws, { id: 'all', tableName: 'Hot', action: 'updateTable' });
    ws.send({ op: 'unsubscribe', id: 0 });
    expect(await ws.json()).toEqual({ op: 'unsubscribed', id: '0' });
    await subscribe(ws, { id: 5, tableName: 'Hot', where: heavyWhere(5) });
    // Another connection has its own budget.
    await subscribe(await client(), { id: 0, tableName: 'Hot', where: heavyWhere(0) });
  });

  it('an application past maxWhereSubscriptionsPerApp gets 11166 on every connection; closing a connection frees its subscriptions', async () => {
    await start({ maxWhereSubscriptionsPerApp: 3 });
    const [a, b] = [await client(), await client()];
    await subscribe(a, { id: 1, tableName: 'Hot', where: { n: 1 } });
    await subscribe(a, { id: 2, tableName: 'Hot', where: { n: 1 } });
    await subscribe(b, { id: 1, tableName: 'Hot', where: { n: 2 } });
    b.send({ op: 'subscribe', id: 2, tableName: 'Hot', where: { n: 3 } });
    expect(await b.json()).toEqual({
      op: 'error',
      id: '2',
      code: 11166,
      error: 'where subscription refused: this application already has 3 where subscriptions on this instance (maxWhereSubscriptionsPerApp).',
    });
    await subscribe(b, { id: 3, tableName: 'Hot', action: 'updateTable' });
    a.ws.close();
    await a.closed;
    // The instance forgets a's subscriptions once it saw the close (its connection list says when).
    for (let seen = 2; seen > 1; ) seen = (await server.request('GET', '/1/realtime/connections', { auth: 'master' })).body.count;
    await subscribe(b, { id: 2, tableName: 'Hot', where: { n: 3 } });
    await subscribe(b, { id: 4, tableName: 'Hot', where: { n: 4 } });
  });

  it('identical wheres share one predicate: they count once against maxWhereCostPerApp, whatever their key order, and each gets its events', async () => {
    await start({ maxWhereCostPerApp: 100 });
    const [a, b] = [await client(), await client()];
    const values = inWhere(58).tag.$in;
    // Cost 1 + 58 + 1 = 60, twice: past 100 unless shared.
    await subscribe(a, { id: 'w', tableName: 'Hot', where: { tag: { $in: values }, level: 1 } });
    await subscribe(b, { id: 'w', tableName: 'Hot', where: { level: 1, tag: { $in: values } } });
    b.send({ op: 'subscribe', id: 'other', tableName: 'Hot', where: { tag: { $in: values }, level: 2 } });
    const refused = await b.json();
    expect(refused).toMatchObject({ op: 'error', id: 'other', code: 11166 });
    expect(refused.error).toContain('would cost 120, over maxWhereCostPerApp 100');

    const created = await server.request('POST', '/1/classes/Hot', { body: { tag: values[7], level: 1 } });
    expect(created.status).toBe(201);
    for (const ws of [a, b]) expect(await ws.json()).toMatchObject({ op: 'event', id: 'w', action: 'create', objectId: created.body.objectId });

    // The shared where is freed only when its last subscription goes.
    a.send({ op: 'unsubscribe', id: 'w' });
    expect(await a.json()).toEqual({ op: 'unsubscribed', id: 'w' });
    b.send({ op: 'subscribe', id: 'other', tableName: 'Hot', where: { tag: { $in: values }, level: 2 } });
    expect(await b.json()).toMatchObject({ op: 'error', id: 'other', code: 11166 });
    b.send({ op: 'unsubscribe', id: 'w' });
    expect(await b.json()).toEqual({ op: 'unsubscribed', id: 'w' });
    await subscribe(b, { id: 'other', tableName: 'Hot', where: { tag: { $in: values }, level: 2 } });
  });

  it('a shared where over a column the table did not have yet is compiled again once, and every subscriber gets the event', async () => {
    await start();
    const [a, b] = [await client(), await client()];
    await subscribe(a, { id: 'late', tableName: 'Fresh', where: { level: { $gt: 2 } } });
    await subscribe(b, { id: 'late', tableName: 'Fresh', where: { level: { $gt: 2 } } });
    await server.request('POST', '/1/classes/Fresh', { body: { level: 1 } });
    const created = await server.request('POST', '/1/classes/Fresh', { body: { level: 3 } });
    for (const ws of [a, b]) expect(await ws.json()).toMatchObject({ id: 'late', action: 'create', objectId: created.body.objectId, data: { level: 3 } });
  });

  it('refuses bad budget options as configuration mistakes', async () => {
    for (const bad of [{ maxWhereCostPerConnection: 0 }, { maxWhereCostPerApp: 1.5 }, { dispatchSliceMs: -1 }, { maxPendingChangeBytes: 0 }, { maxWhereSubscriptionsPerApp: Number.NaN }]) {
      await expect(startRealtimeServer({ applications: [RT_APP], realtime: bad })).rejects.toThrow(/\[svcbase\] \[realtime\] \w+ must be a positive integer/);
    }
    await start();
  });
});
