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
});
