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

  it('refuses malformed items as a whole (113) before running any', async () => {
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
    ];
    for (const item of bad) {
      const res = await server.request('POST', '/1/batch', { body: { requests: [good, item] } });
      expect(res.body.code, JSON.stringify(item)).toBe(113);
    }
    expect(await server.service.context.storage.getSchema({ namespace: 'test_app', className: 'Shape' })).toBeNull();
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
