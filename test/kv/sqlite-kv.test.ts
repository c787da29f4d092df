import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { immediateTransaction, sqliteKvStore } from '../../src/kv/sqlite-kv.js';
import { runKvStoreConformance } from '../../src/testing.js';

const T0 = Date.UTC(2026, 0, 1);
const dir = mkdtempSync(join(tmpdir(), 'svcbase-kv-'));
const opened: Database.Database[] = [];
afterAll(() => {
  for (const db of opened) db.close();
  rmSync(dir, { recursive: true, force: true });
});

function open(file = ':memory:'): Database.Database {
  const db = new Database(file);
  opened.push(db);
  return db;
}

runKvStoreConformance('sqlite', () => sqliteKvStore({ database: open() }));

describe('sqliteKvStore specifics', () => {
  it('keeps values across a reopen of the file', async () => {
    const file = join(dir, 'kv.db');
    const first = open(file);
    const kv = sqliteKvStore({ database: first });
    await kv.put('code', 'abc', T0 + 60_000);
    await kv.increment('seq', 41, Number.MAX_SAFE_INTEGER, T0);
    first.close();
    const again = sqliteKvStore({ database: open(file) });
    expect(await again.get('code', T0)).toBe('abc');
    expect(await again.increment('seq', 1, Number.MAX_SAFE_INTEGER, T0)).toBe(42);
  });

  it('two connections to one file share take: the value is taken once', async () => {
    const file = join(dir, 'shared.db');
    const a = sqliteKvStore({ database: open(file) });
    const b = sqliteKvStore({ database: open(file) });
    await a.put('once', 'v', T0 + 1000);
    expect(await b.take('once', T0)).toBe('v');
    expect(await a.take('once', T0)).toBeNull();
  });

  it('a put-only workload is swept too (with the latest time seen)', async () => {
    const db = open();
    const kv = sqliteKvStore({ database: db, sweepEvery: 100 });
    for (let i = 0; i < 99; i++) await kv.put(`old${i}`, 'v', T0 + 10);
    await kv.get('anything', T0 + 1000);
    await kv.put('new', 'v', T0 + 5000);
    expect(db.prepare('SELECT key FROM svc_kv').all()).toEqual([{ key: 'new' }]);
  });

  it('refuses a table name that is not an identifier', () => {
    expect(() => sqliteKvStore({ database: open(), table: 'kv; DROP TABLE x' })).toThrow(/\[svcbase\] \[sqlite-kv\]/);
  });

  it('immediateTransaction rolls back on error and nests as a savepoint', () => {
    const db = open();
    db.exec('CREATE TABLE t (v INTEGER)');
    expect(() => immediateTransaction(db, () => {
      db.exec('INSERT INTO t VALUES (1)');
      throw new Error('boom');
    })).toThrow('boom');
    expect(db.prepare('SELECT count(*) AS n FROM t').get()).toEqual({ n: 0 });
    db.exec('BEGIN');
    immediateTransaction(db, () => db.exec('INSERT INTO t VALUES (2)'));
    db.exec('COMMIT');
    expect(db.prepare('SELECT count(*) AS n FROM t').get()).toEqual({ n: 1 });
  });
});
