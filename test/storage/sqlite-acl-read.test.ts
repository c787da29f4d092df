import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { dateValue, type StoredRecord, type Value } from '../../src/core/values.js';
import type { FindPlan } from '../../src/query/plan.js';
import { ACL_READ_COLUMN, aclReadText } from '../../src/query/sql/acl-read-column.js';
import { sqliteStorage } from '../../src/storage/sqlite/index.js';

const dir = mkdtempSync(join(tmpdir(), 'svcbase-acl-read-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ref = { namespace: 'app', className: 'Note' };
const TABLE = '"app__Note"';
const at = dateValue(Date.UTC(2026, 0, 1));
const note = (objectId: string, acl?: Value): StoredRecord => ({ objectId, createdAt: at, updatedAt: at, title: objectId, ...(acl === undefined ? {} : { ACL: acl }) }) as StoredRecord;

/** Every row's `ACL$read` against what the layout says it must be for the row's ACL. */
function disagreements(db: Database.Database): string[] {
  const rows = db.prepare(`SELECT "objectId", "ACL", "${ACL_READ_COLUMN}" AS "read" FROM ${TABLE}`).all() as Array<{ objectId: string; ACL: string | null; read: string | null }>;
  return rows.filter((r) => r.read !== aclReadText(r.ACL === null ? null : (JSON.parse(r.ACL) as Value))).map((r) => `${r.objectId}: ${String(r.read)} for ${String(r.ACL)}`);
}

const readableBy = (principals: string[]): FindPlan => ({
  where: { kind: 'acl_read', principals },
  order: [{ field: { column: 'objectId', path: [] }, descending: false }],
  limit: 100,
  skip: 0,
  projection: { kind: 'all' },
});

describe('ACL$read: the read principals kept beside the ACL (SQLite)', () => {
  it('encodes read grants only: NULL for everyone, one principal as itself, more as a list; fails closed on odd values', () => {
    expect(aclReadText(undefined)).toBeNull();
    expect(aclReadText(null)).toBeNull();
    expect(aclReadText({ '*': { read: true }, u1: { write: true } })).toBeNull();
    expect(aclReadText({ u1: { read: true, write: true }, 'role:mods': { read: true }, u2: { write: true } })).toBe(',u1,role:mods,');
    expect(aclReadText({ '*': { write: true } })).toBe(',');
    expect(aclReadText({})).toBe(',');
    expect(aclReadText({ u1: { read: 'yes' }, u2: { read: false }, u3: [true], u4: null })).toBe(',');
    expect(aclReadText('u1')).toBe(',');
    expect(aclReadText([{ read: true }])).toBe(',');
    // A key with the separator could match two principals: it is left out.
    expect(aclReadText({ 'a,b': { read: true }, c: { read: true } })).toBe('c');
    expect(aclReadText({ 'a,b': { read: true }, c: { read: true }, d: { read: true } })).toBe(',c,d,');
    // One principal is kept as itself (D147): it sorts at or above '-', every list below.
    expect(aclReadText({ u1: { read: true, write: true } })).toBe('u1');
    expect(aclReadText({ 'role:mods': { read: true }, u2: { write: true } })).toBe('role:mods');
    expect(aclReadText({ '-x': { read: true } })! >= '-').toBe(true);
    expect(aclReadText({ '-x': { read: true }, y: { read: true } })! < '-').toBe(true);
  });

  it('follows every write of the ACL: insert, replace, dot-path set and unset, unset, delete', async () => {
    const db = new Database(join(dir, 'writes.db'));
    const storage = sqliteStorage({ database: db, closeDatabase: false, readers: 0 });
    await storage.ensureColumns(ref, { title: { type: 'String' }, ACL: { type: 'Object' } });
    await storage.insert(ref, note('n1', { u1: { read: true, write: true } }));
    await storage.insert(ref, note('n2'));
    await storage.insert(ref, note('n3', { '*': { read: true } }));
    await storage.insert(ref, note('n4', { 'role:mods': { read: true } }));
    expect(disagreements(db)).toEqual([]);
    await storage.update(ref, 'n1', [{ kind: 'set', column: 'ACL', path: [], value: { u2: { read: true } } }], at);
    await storage.update(ref, 'n2', [{ kind: 'set', column: 'ACL', path: ['u3'], value: { read: true } }], at);
    await storage.update(ref, 'n3', [{ kind: 'unset', column: 'ACL', path: ['*'] }], at);
    await storage.update(ref, 'n4', [{ kind: 'unset', column: 'ACL', path: [] }], at);
    expect(disagreements(db)).toEqual([]);
    const read = db.prepare(`SELECT "objectId", "${ACL_READ_COLUMN}" AS "read" FROM ${TABLE} ORDER BY "objectId"`).all();
    expect(read).toEqual([
      { objectId: 'n1', read: 'u2' },
      { objectId: 'n2', read: 'u3' },
      { objectId: 'n3', read: ',' },
      { objectId: 'n4', read: null },
    ]);
    const ids = async (principals: string[]) => ((await storage.find(ref, readableBy(principals))) as StoredRecord[]).map((r) => r.objectId);
    expect(await ids(['*'])).toEqual(['n4']);
    expect(await ids(['*', 'u2', 'u3'])).toEqual(['n1', 'n2', 'n4']);
    // A principal that is a prefix or a suffix of another matches only itself.
    expect(await ids(['*', 'u'])).toEqual(['n4']);
    expect(Object.keys((await storage.get(ref, 'n1'))!)).not.toContain(ACL_READ_COLUMN);
    await storage.close();
    db.close();
  });

  it('is added and filled when a file made before it is opened, then dropped with the ACL column', async () => {
    const file = join(dir, 'old.db');
    const first = new Database(file);
    const storage = sqliteStorage({ database: first, closeDatabase: false, readers: 0 });
    await storage.ensureColumns(ref, { title: { type: 'String' }, ACL: { type: 'Object' } });
    await storage.transaction(async (tx) => {
      for (let i = 0; i < 2500; i++) await tx.insert(ref, note(`m${String(i).padStart(4, '0')}`, i % 3 === 0 ? undefined : i % 3 === 1 ? { '*': { read: true } } : { [`u${i % 7}`]: { read: true } }));
    });
    await storage.close();
    first.exec(`ALTER TABLE ${TABLE} DROP COLUMN "${ACL_READ_COLUMN}"`);
    first.close();

    const db = new Database(file);
    const reopened = sqliteStorage({ database: db, closeDatabase: false, readers: 0 });
    expect(disagreements(db)).toEqual([]);
    const seen = (await reopened.count(ref, { kind: 'acl_read', principals: ['*', 'u3'] })) as number;
    expect(seen).toBe(Array.from({ length: 2500 }, (_, i) => i % 3 !== 2 || i % 7 === 3).filter(Boolean).length);
    await reopened.dropColumn?.(ref, 'ACL');
    const columns = (db.prepare(`PRAGMA table_info(${TABLE})`).all() as Array<{ name: string }>).map((c) => c.name);
    expect(columns).not.toContain(ACL_READ_COLUMN);
    expect(columns).not.toContain('ACL');
    await reopened.close();
    db.close();
  });
});
