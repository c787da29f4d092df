import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.js';
import { startRecordsServer } from './records-server.js';

describe('records REST: POST /1/batch', () => {
  let server: TestServer;
  beforeEach(async () => {
    server = await startRecordsServer();
  });
  afterEach(() => server.close());

  const create = async (body: Record<string, unknown>) => (await server.request('POST', '/1/classes/GameScore', { body })).body.objectId as string;
  const get = (id: string) => server.request('GET', `/1/classes/GameScore/${id}`);

  it('runs items in order and replies {success} or {error} per item', async () => {
    const id = await create({ score: 1 });
    const res = await server.request('POST', '/1/batch', {
      body: {
        requests: [
          { method: 'POST', path: '/1/classes/GameScore', body: { score: 1337, playerName: 'Sean' } },
          { method: 'put', path: `/1/classes/GameScore/${id}`, body: { score: { __op: 'Increment', amount: 10 } } },
          { method: 'DELETE', path: '/1/classes/GameScore/missing000' },
          { method: 'PUT', path: `/1/classes/GameScore/${id}`, body: { score: 'not a number' } },
          { method: 'DELETE', path: `/1/classes/GameScore/${id}` },
        ],
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(5);
    expect(res.body[0].success).toEqual({ createdAt: expect.any(String), objectId: expect.stringMatching(/^[0-9a-zA-Z]{10}$/) });
    expect(res.body[1]).toEqual({ success: { updatedAt: expect.any(String) } });
    expect(res.body[2]).toEqual({ error: { code: 101, error: 'object not found for missing000.' } });
    expect(res.body[3].error.code).toBe(111);
    expect(res.body[4]).toEqual({ success: { msg: 'ok' } });
    expect((await get(res.body[0].success.objectId)).body.score).toBe(1337);
    expect((await get(id)).status).toBe(404);
  });

  it('refuses a body whose requests is not an array (112)', async () => {
    for (const requests of [undefined, {}, 'x', 3]) {
      const res = await server.request('POST', '/1/batch', { body: { requests } });
      expect(res.body.code).toBe(112);
    }
  });

  it('refuses more than 50 items (114) and runs none', async () => {
    const requests = Array.from({ length: 51 }, () => ({ method: 'POST', path: '/1/classes/Many', body: { a: 1 } }));
    const res = await server.request('POST', '/1/batch', { body: { requests } });
    expect(res.body).toEqual({ code: 114, error: 'requests array larger than 50.' });
    expect(await server.service.context.storage.getSchema({ namespace: 'test_app', className: 'Many' })).toBeNull();
    const fifty = await server.request('POST', '/1/batch', { body: { requests: requests.slice(0, 50) } });
    expect(fifty.body).toHaveLength(50);
  });

  it('fix 11.2: a malformed item answers 113 in its slot and the other items still run', async () => {
    const good = { method: 'POST', path: '/1/classes/Shape', body: { a: 1 } };
    const bad: unknown[] = [
      'text',
      null,
      [1],
      { path: '/1/classes/Shape' },
      { method: 'GET', path: '/1/classes/Shape' },
      { method: 'PATCH', path: '/1/classes/Shape' },
      { method: 'POST' },
      { method: 'POST', path: 42 },
      { method: 'POST', path: 'classes/Shape' },
      { method: 'POST', path: '/1/classes/Shape', body: [1] },
      { method: 'POST', path: '/1/classes/Shape', body: 'x' },
      { method: 'POST', path: '/1/functions/hello', body: {} },
      { method: 'POST', path: '/1/classes/Shape/abc', body: {} },
      { method: 'POST', path: '/1/classes/Shape', token: 5 },
      { method: 'POST', path: '/1/classes/Shape?x=1', body: {} },
    ];
    for (const item of bad) {
      const res = await server.request('POST', '/1/batch', { body: { requests: [good, item, good] } });
      expect(res.status, JSON.stringify(item)).toBe(200);
      expect(res.body, JSON.stringify(item)).toHaveLength(3);
      expect(res.body[0].success.objectId, JSON.stringify(item)).toEqual(expect.any(String));
      expect(res.body[1].error.code, JSON.stringify(item)).toBe(113);
      expect(res.body[2].success.objectId, JSON.stringify(item)).toEqual(expect.any(String));
    }
    const list = await server.request('GET', '/1/classes/Shape?count=1&limit=0');
    expect(list.body.count).toBe(bad.length * 2);
  });

  it("fix 11.2: the SDK's saveAll of mixed new/old objects (post /1/classes/T/<id>) saves the new ones", async () => {
    const old = await create({ score: 1 });
    // hydrogen-js-sdk saveAll: once one item is a post, later items are posts too, even with an objectId.
    const res = await server.request('POST', '/1/batch', {
      body: {
        requests: [
          { method: 'post', path: '/1/classes/GameScore', body: { score: 2 } },
          { method: 'post', path: `/1/classes/GameScore/${old}`, body: { score: 3 } },
          { method: 'post', path: '/1/classes/GameScore', body: { score: 4 } },
        ],
      },
    });
    expect(res.status).toBe(200);
    expect(res.body[0].success.objectId).toEqual(expect.any(String));
    expect(res.body[1].error).toEqual({ code: 113, error: expect.stringContaining(`item 1: no batchable route for POST /1/classes/GameScore/${old}`) });
    expect(res.body[2].success.objectId).toEqual(expect.any(String));
    expect((await get(old)).body.score).toBe(1);
    expect((await get(res.body[2].success.objectId)).body.score).toBe(4);
  });

  it('fix 11.2: with "transaction": true a malformed item rolls back every item (11070)', async () => {
    const res = await server.request('POST', '/1/batch', {
      body: { transaction: true, requests: [{ method: 'POST', path: '/1/classes/Tx', body: { a: 1 } }, { method: 'POST', path: '/1/classes/Tx/abc', body: {} }] },
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(11070);
    expect(res.body.error).toContain('item 1 (code 113');
    expect(await server.service.context.storage.getSchema({ namespace: 'test_app', className: 'Tx' })).toBeNull();
  });

  it('fix 11.2: only a bad envelope refuses the whole request', async () => {
    const raw = await server.request('POST', '/1/batch', { rawBody: '[{"method":"POST","path":"/1/classes/Env","body":{}}]', headers: { 'content-type': 'application/json' } });
    expect(raw.status).toBe(400);
    expect(raw.body.code).toEqual(expect.any(Number));
    expect(await server.service.context.storage.getSchema({ namespace: 'test_app', className: 'Env' })).toBeNull();
  });

  it('refuses the user table (11071)', async () => {
    for (const path of ['/1/users', '/1/users/abc', '/1/classes/_User', '/1/classes/_User/abc']) {
      const res = await server.request('POST', '/1/batch', { body: { requests: [{ method: 'PUT', path, body: {} }] } });
      expect(res.body.code, path).toBe(11071);
    }
  });

  it('refuses system tables without a batch policy', async () => {
    const res = await server.request('POST', '/1/batch', { body: { requests: [{ method: 'POST', path: '/1/classes/_Role', body: { name: 'x' } }] } });
    expect(res.body.code).toBe(11071);
  });

  it('transaction mode: one failing item rolls every item back (11070)', async () => {
    const id = await create({ score: 1 });
    const res = await server.request('POST', '/1/batch', {
      body: {
        transaction: true,
        requests: [
          { method: 'PUT', path: `/1/classes/GameScore/${id}`, body: { score: { __op: 'Increment', amount: 5 } } },
          { method: 'POST', path: '/1/classes/Other', body: { a: 1 } },
          { method: 'DELETE', path: '/1/classes/GameScore/missing000' },
        ],
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(11070);
    expect(res.body.error).toContain('item 2');
    expect((await get(id)).body.score).toBe(1);
    expect(await server.service.context.storage.getSchema({ namespace: 'test_app', className: 'Other' })).toBeNull();
  });

  it('transaction mode: every outcome when all items succeed', async () => {
    const id = await create({ score: 1 });
    const res = await server.request('POST', '/1/batch', {
      body: {
        transaction: true,
        requests: [
          { method: 'PUT', path: `/1/classes/GameScore/${id}`, body: { score: { __op: 'Increment', amount: 5 } } },
          { method: 'POST', path: '/1/classes/GameScore', body: { likes: { __op: 'AddRelation', objects: [{ __type: 'Pointer', className: '_User', objectId: 'u1' }] } } },
        ],
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.map((r: Record<string, unknown>) => Object.keys(r))).toEqual([['success'], ['success']]);
    expect((await get(id)).body.score).toBe(6);
  });

  it('refuses a non-boolean transaction flag', async () => {
    const res = await server.request('POST', '/1/batch', { body: { transaction: 'yes', requests: [] } });
    expect(res.body.code).toBe(11005);
  });

  it('an empty batch replies an empty array', async () => {
    const res = await server.request('POST', '/1/batch', { body: { requests: [] } });
    expect(res).toMatchObject({ status: 200, body: [] });
  });
});
