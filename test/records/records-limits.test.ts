import { afterEach, describe, expect, it } from 'vitest';
import { memoryStorage } from '../../src/memory.js';
import { openSqlite } from '../../src/storage/sqlite/index.js';
import type { StorageAdapter } from '../../src/storage/port.js';
import { type TestServer, startTestServer } from '../helpers/server.js';

/** The default `settings.schema.maxColumns`. */
const MAX_TABLE_COLUMNS = 500;
const adapters: Array<[string, () => StorageAdapter]> = [
  ['memory', () => memoryStorage()],
  ['sqlite', () => openSqlite(':memory:')],
];
const columns = (prefix: string, n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${i}`, i]));

describe.each(adapters)('records: table width (%s)', (_name, storage) => {
  let server: TestServer;
  afterEach(() => server.close());

  it('fix 11.6: a write that would make a table wider than the limit answers 11083 (was a 500 on SQLite) and writes nothing', async () => {
    server = await startTestServer({ storage: storage() });
    const wide = await server.request('POST', '/1/classes/Wide', { body: columns('c', 3000) });
    expect(wide.status).toBe(400);
    expect(wide.body.code).toBe(11083);
    expect(await server.service.context.storage.getSchema({ namespace: 'test_app', className: 'Wide' })).toBeNull();

    const created = await server.request('POST', '/1/classes/Grow', { body: columns('a', MAX_TABLE_COLUMNS - 10) });
    expect(created.status).toBe(201);
    const id = created.body.objectId as string;
    const over = await server.request('PUT', `/1/classes/Grow/${id}`, { body: { ...columns('b', 11), a0: 99 } });
    expect([over.status, over.body.code]).toEqual([400, 11083]);
    const read = await server.request('GET', `/1/classes/Grow/${id}`);
    expect(read.body.a0).toBe(0);
    expect(read.body.b0).toBeUndefined();
    // Existing columns do not count twice; up to the limit is fine.
    expect((await server.request('PUT', `/1/classes/Grow/${id}`, { body: { ...columns('b', 10), a0: 99 } })).status).toBe(200);
    expect((await server.request('POST', '/1/classes/Grow', { body: { ...columns('a', 5), x: 1 } })).body.code).toBe(11083);
  });

  it('fix 11.6: in a batch the too-wide item answers 11083 in its slot', async () => {
    server = await startTestServer({ storage: storage() });
    const res = await server.request('POST', '/1/batch', {
      body: { requests: [{ method: 'POST', path: '/1/classes/B', body: columns('c', MAX_TABLE_COLUMNS + 1) }, { method: 'POST', path: '/1/classes/B', body: { c0: 1 } }] },
    });
    expect(res.status).toBe(200);
    expect(res.body[0].error.code).toBe(11083);
    expect(res.body[1].success.objectId).toEqual(expect.any(String));
  });
});
