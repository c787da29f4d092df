import { afterEach, describe, expect, it } from 'vitest';
import type { StorageAdapter } from '../../src/storage/port.js';
import { memoryStorage } from '../../src/storage/memory/index.js';
import { openSqlite } from '../../src/storage/sqlite/index.js';
import type { TestServer } from '../helpers/server.js';
import { startRecordsServer } from './records-server.js';

const adapters: Array<[string, () => StorageAdapter]> = [
  ['memory', () => memoryStorage()],
  ['sqlite', () => openSqlite(':memory:')],
];

describe.each(adapters)('records REST over real HTTP: atomic updates (%s)', (_name, makeStorage) => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('200 concurrent Increments end at exactly +200', async () => {
    server = await startRecordsServer({ storage: makeStorage() });
    const s = server;
    const created = await s.request('POST', '/1/classes/Counter', { body: { n: 5 } });
    const path = `/1/classes/Counter/${created.body.objectId}`;
    const results = await Promise.all(Array.from({ length: 200 }, () => s.request('PUT', path, { body: { n: { __op: 'Increment', amount: 1 } } })));
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect((await s.request('GET', path)).body.n).toBe(205);
  });

  it('concurrent Increments on a fresh column start at 0', async () => {
    server = await startRecordsServer({ storage: makeStorage() });
    const s = server;
    const created = await s.request('POST', '/1/classes/Counter', { body: {} });
    const path = `/1/classes/Counter/${created.body.objectId}`;
    await Promise.all(Array.from({ length: 50 }, () => s.request('PUT', path, { body: { fresh: { __op: 'Increment', amount: -2 } } })));
    expect((await s.request('GET', path)).body.fresh).toBe(-100);
  });

  it('concurrent AddUnique never duplicates', async () => {
    server = await startRecordsServer({ storage: makeStorage() });
    const s = server;
    const created = await s.request('POST', '/1/classes/Tagged', { body: { tags: [] } });
    const path = `/1/classes/Tagged/${created.body.objectId}`;
    await Promise.all(
      Array.from({ length: 100 }, (_, i) => s.request('PUT', path, { body: { tags: { __op: 'AddUnique', objects: [`t${i % 7}`, `t${(i + 1) % 7}`] } } })),
    );
    const tags = (await s.request('GET', path)).body.tags as string[];
    expect([...tags].sort()).toEqual(['t0', 't1', 't2', 't3', 't4', 't5', 't6']);
  });

  it('concurrent creates of a new table with conflicting types: one type wins, the rest get 111', async () => {
    server = await startRecordsServer({ storage: makeStorage() });
    const s = server;
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => s.request('POST', '/1/classes/Race', { body: { v: i % 2 === 0 ? 1 : 'one' } })),
    );
    const ok = results.filter((r) => r.status === 201);
    const refused = results.filter((r) => r.status !== 201);
    expect(ok.length).toBeGreaterThan(0);
    expect(ok.length + refused.length).toBe(20);
    for (const r of refused) expect(r.body.code).toBe(111);
  });
});
