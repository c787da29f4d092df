import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, expectTypeOf, it } from 'vitest';
import { dateValue } from '../../src/core/values.js';
import type { StoredRecord } from '../../src/core/values.js';
import type { SqliteDatabase } from '../../src/storage/sqlite/index.js';
import { connectionGate, sqliteStorage } from '../../src/storage/sqlite/index.js';
import { quoteIdent } from '../../src/storage/sqlite/identifiers.js';

const dir = mkdtempSync(join(tmpdir(), 'svcbase-sqlite-unit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ref = { namespace: 'app', className: 'Game' };
let n = 0;
const record = (fields: Record<string, unknown> = {}): StoredRecord =>
  ({ objectId: `r${++n}`, createdAt: dateValue(1_000 + n), updatedAt: dateValue(1_000 + n), ...fields }) as StoredRecord;

describe('sqlite adapter specifics', () => {
  it('accepts a better-sqlite3 Database by shape', () => {
    expectTypeOf<Database.Database>().toMatchTypeOf<SqliteDatabase>();
  });

  it('tunes the page cache and memory mapping of its connection (defaults, options, refusals)', async () => {
    const db = new Database(join(dir, 'tuning.db'));
    const storage = sqliteStorage({ database: db, closeDatabase: false, readers: 0 });
    expect(db.pragma('cache_size', { simple: true })).toBe(-32768);
    expect(db.pragma('mmap_size', { simple: true })).toBe(256 * 1024 * 1024);
    await storage.close();
    const tuned = sqliteStorage({ database: db, closeDatabase: false, readers: 0, cacheSizeKiB: 4096, mmapSizeBytes: 0 });
    expect(db.pragma('cache_size', { simple: true })).toBe(-4096);
    expect(db.pragma('mmap_size', { simple: true })).toBe(0);
    await tuned.close();
    expect(() => sqliteStorage({ database: db, closeDatabase: false, readers: 0, cacheSizeKiB: -1 })).toThrow(/cacheSizeKiB/);
    expect(() => sqliteStorage({ database: db, closeDatabase: false, readers: 0, mmapSizeBytes: 1.5 })).toThrow(/mmapSizeBytes/);
    db.close();
  });

  it('lays tables out as layout.ts says and enables WAL on files', async () => {
    const db = new Database(join(dir, 'layout.db'));
    const storage = sqliteStorage({ database: db, closeDatabase: false });
    await storage.ensureColumns(ref, {
      score: { type: 'Number' },
      place: { type: 'GeoPoint' },
      owner: { type: 'Pointer', targetClass: '_User' },
      likes: { type: 'Relation', targetClass: '_User' },
    });
    await storage.createIndex(ref, { name: 'byScore', columns: ['score'], unique: true });
    const objects = (db.prepare(`SELECT type, name FROM sqlite_master WHERE name LIKE 'app__%' ORDER BY name`).all() as Array<{ type: string; name: string }>).map(
      (o) => `${o.type}:${o.name}`,
    );
    expect(objects).toEqual(
      expect.arrayContaining(['table:app__Game', 'index:app__Game$$createdAt', 'index:app__Game$ix$byScore', 'table:app__Game$likes', 'index:app__Game$likes$$related']),
    );
    const columns = (db.prepare(`PRAGMA table_info("app__Game")`).all() as Array<{ name: string; type: string }>).map((c) => `${c.name} ${c.type}`);
    expect(columns).toEqual(['objectId TEXT', 'createdAt INTEGER', 'updatedAt INTEGER', 'score REAL', 'place$lat REAL', 'place$lng REAL', 'owner TEXT']);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('synchronous', { simple: true })).toBe(1);
    await storage.close();
    expect(db.open).toBe(true);
    db.close();
  });

  it('picks up columns added after a statement was cached', async () => {
    const storage = sqliteStorage({ database: new Database(':memory:') });
    await storage.ensureColumns(ref, { a: { type: 'Number' } });
    const r = record({ a: 1 });
    await storage.insert(ref, r);
    expect(await storage.get(ref, r.objectId)).toEqual(r);
    await storage.ensureColumns(ref, { b: { type: 'String' } });
    const after = await storage.update(ref, r.objectId, [{ kind: 'set', column: 'b', path: [], value: 'x' }], dateValue(5_000));
    expect(after).toMatchObject({ a: 1, b: 'x' });
    expect(await storage.get(ref, r.objectId)).toEqual(after);
    await storage.close();
  });

  it('persists schemas and indexes across reopen', async () => {
    const file = join(dir, 'reopen.db');
    const first = sqliteStorage({ database: new Database(file) });
    await first.ensureColumns(ref, { email: { type: 'String' }, owner: { type: 'Pointer', targetClass: '_User' } });
    await first.createIndex(ref, { name: 'email', columns: ['email'], unique: true });
    await first.insert(ref, record({ email: 'a@x', owner: { __type: 'Pointer', className: '_User', objectId: 'u1' } }));
    const schema = await first.getSchema(ref);
    await first.close();
    const second = sqliteStorage({ database: new Database(file) });
    expect(await second.getSchema(ref)).toEqual(schema);
    await expect(Promise.resolve().then(() => second.insert(ref, record({ email: 'a@x' })))).rejects.toMatchObject({ code: 401 });
    await second.close();
  });

  it('registers svc_regex for the query compiler', () => {
    const db = new Database(':memory:');
    sqliteStorage({ database: db });
    const row = db.prepare(`SELECT svc_regex('^sm', 'i', 'Smile') AS a, svc_regex('^x', '', 'Smile') AS b, svc_regex('a', '', NULL) AS c`).get();
    expect(row).toEqual({ a: 1, b: 0, c: 0 });
    db.close();
  });

  it('refuses identifiers outside [A-Za-z0-9_$] before they reach SQL', () => {
    for (const bad of ['a"b', 'a b', "x'; DROP TABLE t; --", '', 'a.b']) expect(() => quoteIdent(bad)).toThrow(/\[svcbase\] \[sqlite\]/);
    expect(quoteIdent('app__Game$ix$byScore')).toBe('"app__Game$ix$byScore"');
  });

  it('other callers wait while a transaction holds the connection', async () => {
    const storage = sqliteStorage({ database: new Database(':memory:') });
    await storage.ensureColumns(ref, { n: { type: 'Number' } });
    const r = record({ n: 0 });
    await storage.insert(ref, r);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const order: string[] = [];
    const tx = storage.transaction(async (t) => {
      await t.update(ref, r.objectId, [{ kind: 'increment', column: 'n', path: [], amount: 1 }], dateValue(9_000));
      await held;
      order.push('tx');
    });
    const outside = Promise.resolve(storage.get(ref, r.objectId)).then((got) => {
      order.push('outside');
      return got;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual([]);
    release();
    await tx;
    expect((await outside)?.n).toBe(1);
    expect(order).toEqual(['tx', 'outside']);
    await storage.close();
  });

  it('statements of other stores on the same connection wait for a transaction through connectionGate', async () => {
    const db = new Database(':memory:');
    db.exec('CREATE TABLE kv (k TEXT PRIMARY KEY, v TEXT)');
    const storage = sqliteStorage({ database: db, closeDatabase: false });
    await storage.ensureColumns(ref, {});
    const kvPut = (k: string) => connectionGate(db).run(() => db.prepare('INSERT INTO kv VALUES (?, ?)').run(k, 'v'));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const tx = storage.transaction(async (t) => {
      await t.insert(ref, record());
      await held;
      throw new Error('rollback');
    });
    const put = Promise.resolve(kvPut('during'));
    release();
    await expect(tx).rejects.toThrow('rollback');
    await put;
    expect(db.prepare('SELECT k FROM kv').all()).toEqual([{ k: 'during' }]);
    kvPut('after');
    expect(db.prepare('SELECT count(*) AS n FROM kv').get()).toEqual({ n: 2 });
    await storage.close();
    db.close();
  });
});
