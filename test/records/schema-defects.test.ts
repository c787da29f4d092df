import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { memoryStorage } from '../../src/memory.js';
import { sqliteStorage } from '../../src/storage/sqlite/index.js';
import type { StorageAdapter } from '../../src/storage/port.js';
import type { TestServer } from '../helpers/server.js';
import { startUsersServer } from '../users/users-server.js';

const ADAPTERS: ReadonlyArray<[string, () => StorageAdapter]> = [
  ['memory', () => memoryStorage()],
  ['sqlite', () => sqliteStorage({ database: new Database(':memory:') })],
];

describe.each(ADAPTERS)('schema defects over HTTP (%s)', (_name, storage) => {
  let server: TestServer;
  afterEach(() => server.close());

  it('fix 11.1: unset of a never-created column is a no-op on /1/classes, /1/users and in /1/batch', async () => {
    server = await startUsersServer({ storage: storage() });
    const created = await server.request('POST', '/1/classes/DelBug', { body: { a: 1 } });
    const path = `/1/classes/DelBug/${created.body.objectId}`;
    const put = await server.request('PUT', path, { body: { b: { __op: 'Delete' }, f: 2 } });
    expect(put.status).toBe(200);
    expect(Object.keys(put.body)).toEqual(['updatedAt']);
    const read = await server.request('GET', path);
    expect(read.body).toMatchObject({ a: 1, f: 2 });
    expect(read.body).not.toHaveProperty('b');
    expect((await server.request('PUT', path, { body: { never: null } })).status).toBe(200);

    const batch = await server.request('POST', '/1/batch', {
      body: { requests: [{ method: 'PUT', path, body: { c: { __op: 'Delete' }, g: 3 } }] },
    });
    expect(batch.status).toBe(200);
    expect(batch.body[0]).toHaveProperty('success');
    expect((await server.request('GET', path)).body).toMatchObject({ a: 1, f: 2, g: 3 });

    const users = server as Awaited<ReturnType<typeof startUsersServer>>;
    const user = await users.signUp({ username: 'del', password: 'pw' });
    const userPut = await users.as(user.sessionToken, 'PUT', `/1/users/${user.objectId}`, { nickname: { __op: 'Delete' }, age: 3 });
    expect(userPut.status).toBe(200);
    expect((await server.request('GET', `/1/users/${user.objectId}`)).body).toMatchObject({ username: 'del', age: 3 });
  });

  it('D4: class names differing only in case never share a table; such field names are refused', async () => {
    server = await startUsersServer({ storage: storage() });
    const created = await server.request('POST', '/1/classes/Ledger', { body: { amount: 5 } });
    const id = created.body.objectId as string;
    const lower = await server.request('POST', '/1/classes/ledger', { body: { amount: 1 } });
    expect(lower.status).toBe(400);
    expect(lower.body.code).toBe(11080);
    expect((await server.request('DELETE', `/1/classes/ledger/${id}`)).body.code).toBe(101);
    expect((await server.request('GET', `/1/classes/Ledger/${id}`)).body.amount).toBe(5);
    expect((await server.request('GET', '/1/classes/ledger')).body).toEqual({ results: [] });

    const field = await server.request('PUT', `/1/classes/Ledger/${id}`, { body: { Amount: 2, note: 'x' } });
    expect([field.status, field.body.code]).toEqual([400, 11081]);
    const builtIn = await server.request('POST', '/1/classes/Ledger', { body: { objectid: 'x' } });
    expect(builtIn.body.code).toBe(11081);
    expect(Object.keys((await server.request('GET', `/1/classes/Ledger/${id}`)).body).sort()).toEqual(['amount', 'createdAt', 'objectId', 'updatedAt']);
  });

  it('D8: per-application table and column limits answer coded errors and write nothing', async () => {
    server = await startUsersServer({ storage: storage(), settings: { schema: { maxTables: 2, maxColumns: 3 } } });
    expect((await server.request('POST', '/1/classes/A', { body: { a: 1 } })).status).toBe(201);
    expect((await server.request('POST', '/1/classes/B', { body: { a: 1 } })).status).toBe(201);
    const third = await server.request('POST', '/1/classes/C', { body: { a: 1 } });
    expect([third.status, third.body.code]).toEqual([400, 11082]);
    expect((await server.request('GET', '/1/classes/C')).body).toEqual({ results: [] });
    // Sign-up creates the system tables whatever the limit.
    expect((await server.request('POST', '/1/users', { body: { username: 'u', password: 'p' } })).status).toBe(201);

    const wide = await server.request('POST', '/1/classes/A', { body: { b: 1, c: 2, d: 3 } });
    expect([wide.status, wide.body.code]).toEqual([400, 11083]);
    expect((await server.request('GET', '/1/classes/A', {})).body.results).toHaveLength(1);
    const batch = await server.request('POST', '/1/batch', {
      body: { requests: [{ method: 'POST', path: '/1/classes/A', body: { b: 1 } }, { method: 'POST', path: '/1/classes/A', body: { c: 1, d: 1 } }] },
    });
    expect(batch.body[0]).toHaveProperty('success');
    expect(batch.body[1].error.code).toBe(11083);
  });
});
