import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresStorage } from '../../src/storage/postgres/index.js';
import { type TestServer, startTestServer } from '../helpers/server.js';
import { type TestSchema, createTestSchema, postgresAvailable } from './pg-test-db.js';

/**
 * The REST API end to end over a real socket with the service on PostgreSQL: records (create, get,
 * list with a where, update with atomic operators, delete, batch and transactional batch), users
 * (sign-up, login, the unique username/email/phone codes 202/203/209, also under a race).
 */
const available = await postgresAvailable('pg-rest-e2e');

describe.skipIf(!available)('REST on PostgreSQL (real socket)', () => {
  let schema: TestSchema;
  let server: TestServer;
  beforeAll(async () => {
    schema = await createTestSchema('svc_rest');
    server = await startTestServer({ storage: postgresStorage({ sql: schema.client({ max: 8 }) }) });
  });
  afterAll(async () => {
    await server?.close();
    await schema?.drop();
  });

  it('create, get, list, update, delete', async () => {
    const created = await server.request('POST', '/1/classes/GameScore', { body: { playerName: "O'Brien", score: 10, tags: ['a'], at: { __type: 'Date', iso: '2026-01-02T03:04:05.678Z' } } });
    expect(created.status).toBe(201);
    const id = created.body.objectId as string;
    const got = await server.request('GET', `/1/classes/GameScore/${id}`);
    expect(got.body).toMatchObject({ objectId: id, playerName: "O'Brien", score: 10, tags: ['a'], at: { __type: 'Date', iso: '2026-01-02 03:04:05.678' } });
    await server.request('POST', '/1/classes/GameScore', { body: { playerName: 'ann', score: 30 } });
    const list = await server.request('GET', `/1/classes/GameScore?where=${encodeURIComponent(JSON.stringify({ score: { $gte: 20 } }))}&count=1`);
    expect(list.body.count).toBe(1);
    expect(list.body.results.map((r: { playerName: string }) => r.playerName)).toEqual(['ann']);
    const updated = await server.request('PUT', `/1/classes/GameScore/${id}`, { body: { score: { __op: 'Increment', amount: 5 }, tags: { __op: 'AddUnique', objects: ['a', 'b'] } } });
    expect(updated.status).toBe(200);
    expect((await server.request('GET', `/1/classes/GameScore/${id}`)).body).toMatchObject({ score: 15, tags: ['a', 'b'] });
    expect((await server.request('DELETE', `/1/classes/GameScore/${id}`)).status).toBe(200);
    expect((await server.request('GET', `/1/classes/GameScore/${id}`)).status).toBe(404);
  });

  it('100 concurrent Increments over HTTP end exact', async () => {
    const id = (await server.request('POST', '/1/classes/Counter', { body: { n: 0 } })).body.objectId as string;
    const results = await Promise.all(Array.from({ length: 100 }, () => server.request('PUT', `/1/classes/Counter/${id}`, { body: { n: { __op: 'Increment', amount: 1 } } })));
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect((await server.request('GET', `/1/classes/Counter/${id}`)).body.n).toBe(100);
  });

  it('batch, and a transactional batch that rolls back (11070) including a table it created', async () => {
    const batch = await server.request('POST', '/1/batch', {
      body: { requests: [{ method: 'POST', path: '/1/classes/Item', body: { k: 1 } }, { method: 'POST', path: '/1/classes/Item', body: { k: 2 } }] },
    });
    expect(batch.body.map((r: { success?: unknown }) => Boolean(r.success))).toEqual([true, true]);
    const id = batch.body[0].success.objectId as string;
    const rolled = await server.request('POST', '/1/batch', {
      body: {
        transaction: true,
        requests: [
          { method: 'PUT', path: `/1/classes/Item/${id}`, body: { k: { __op: 'Increment', amount: 5 } } },
          { method: 'POST', path: '/1/classes/Fresh', body: { a: 1 } },
          { method: 'DELETE', path: '/1/classes/Item/missing000' },
        ],
      },
    });
    expect(rolled.body.code).toBe(11070);
    expect((await server.request('GET', `/1/classes/Item/${id}`)).body.k).toBe(1);
    expect(await server.service.context.storage.getSchema({ namespace: 'test_app', className: 'Fresh' })).toBeNull();
    const committed = await server.request('POST', '/1/batch', {
      body: { transaction: true, requests: [{ method: 'PUT', path: `/1/classes/Item/${id}`, body: { k: { __op: 'Increment', amount: 5 } } }, { method: 'POST', path: '/1/classes/Fresh', body: { a: 1 } }] },
    });
    expect(committed.status).toBe(200);
    expect((await server.request('GET', `/1/classes/Item/${id}`)).body.k).toBe(6);
  });

  it('users: sign-up, login, and the unique codes 202/203/209', async () => {
    const signUp = await server.request('POST', '/1/users', { body: { username: 'ann', password: 'pw1', email: 'ann@example.com', mobilePhoneNumber: '13800138000' } });
    expect(signUp.status).toBe(201);
    expect(signUp.body.sessionToken).toEqual(expect.any(String));
    const login = await server.request('GET', '/1/login?username=ann&password=pw1');
    expect(login.status).toBe(200);
    expect(login.body.objectId).toBe(signUp.body.objectId);
    expect((await server.request('GET', '/1/login?username=ann&password=wrong')).status).toBe(400);
    expect((await server.request('POST', '/1/users', { body: { username: 'ann', password: 'x' } })).body.code).toBe(202);
    expect((await server.request('POST', '/1/users', { body: { username: 'bob', password: 'x', email: 'ann@example.com' } })).body.code).toBe(203);
    expect((await server.request('POST', '/1/users', { body: { username: 'cat', password: 'x', mobilePhoneNumber: '13800138000' } })).body.code).toBe(209);
  });

  it('users: 12 concurrent sign-ups with one username make exactly one user; the others get 202 (or the sign-up rate limit, 10076)', async () => {
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => server.request('POST', '/1/users', { body: { username: 'racer', password: `pw${i}` } })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    const losers = results.filter((r) => r.status !== 201).map((r) => r.body.code as number);
    expect(losers).toHaveLength(11);
    expect(losers.every((code) => code === 202 || code === 10076)).toBe(true);
    expect(losers).toContain(202);
    const count = await server.request('GET', `/1/users?where=${encodeURIComponent(JSON.stringify({ username: 'racer' }))}&count=1&limit=0`, { auth: 'master' });
    expect(count.body.count).toBe(1);
  });
});
