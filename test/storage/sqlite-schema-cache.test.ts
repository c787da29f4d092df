import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { registerSqliteFunctions } from '../../src/query/sql/index.js';
import type { ColumnSchema } from '../../src/query/plan.js';
import { SqliteCore } from '../../src/storage/sqlite/sqlite-core.js';
import { openSqlite } from '../../src/storage/sqlite/index.js';
import { isSvcError } from '../../src/core/errors.js';

const ALL = { kind: 'all_records' } as const;

function core(): SqliteCore {
  const db = new Database(':memory:');
  registerSqliteFunctions(db);
  return new SqliteCore(db);
}

describe('sqlite schema cache', () => {
  it('D9: reads of many distinct unknown class names leave the schema cache bounded', () => {
    const c = core();
    c.ensureColumns({ namespace: 'app', className: 'Known' }, { a: { type: 'Number' } });
    for (let i = 0; i < 5000; i++) {
      const ref = { namespace: 'app', className: `Missing${i}` };
      expect(c.getSchema(ref)).toBeNull();
      expect(c.find(ref, { where: ALL, order: [], skip: 0, limit: 10, projection: { kind: 'all' } })).toEqual([]);
      expect(c.get(ref, 'x')).toBeNull();
      expect(c.count(ref, ALL)).toBe(0);
    }
    expect(c.cachedTableCount()).toBe(1);
    // A table created after a miss is found at once.
    c.ensureColumns({ namespace: 'app', className: 'Missing7' }, { b: { type: 'String' } });
    expect(c.getSchema({ namespace: 'app', className: 'Missing7' })?.columns).toEqual({ b: { type: 'String' } });
    expect(c.cachedTableCount()).toBe(2);
  });

  it('D8: with the largest maxColumns (900) even all-GeoPoint tables stay under SQLite\'s column limit', async () => {
    const storage = openSqlite(':memory:');
    const ref = { namespace: 'app', className: 'Wide' };
    const limits = { maxTables: 10, maxColumns: 900 };
    const columns: Record<string, ColumnSchema> = {};
    for (let i = 0; i < 900; i++) columns[`g${i}`] = { type: 'GeoPoint' };
    await storage.ensureColumns(ref, columns, limits);
    const more = await (async () => storage.ensureColumns(ref, { extra: { type: 'GeoPoint' } }, limits))().catch((error: unknown) => error);
    expect(isSvcError(more) && more.code).toBe(11083);
    await storage.close();
  });
});
