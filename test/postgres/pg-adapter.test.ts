import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSvcError } from '../../src/core/errors.js';
import { dateValue, type StoredRecord, type Value } from '../../src/core/values.js';
import { FakeClock } from '../../src/core/clock.js';
import type { WhereNode } from '../../src/query/plan.js';
import { compileSafeRegex } from '../../src/query/regex/safe-regex.js';
import type { StorageAdapter } from '../../src/storage/port.js';
import { postgresStorage } from '../../src/storage/postgres/index.js';
import { TABLE_MARKER, compileInsertSchemaRow } from '../../src/query/sql/bookkeeping-sql.js';
import { postgresDialect } from '../../src/query/sql/index.js';
import { type TestSchema, createTestSchema, postgresAvailable } from './pg-test-db.js';

/**
 * PostgreSQL-specific behaviour beyond the conformance kit: several adapters (separate pools, as
 * separate instances would have) racing on one database: DDL, unique values, increments; `$regex`
 * against the reference matcher on awkward texts; long names; the schema cache across instances.
 */
const available = await postgresAvailable('pg-adapter');

let n = 0;
function record(fields: Record<string, Value> = {}): StoredRecord {
  const at = dateValue(Date.UTC(2026, 0, 1) + ++n);
  return { objectId: `r${n}`, createdAt: at, updatedAt: at, ...fields } as StoredRecord;
}

async function settle<T>(work: Array<T | Promise<T>>): Promise<{ ok: T[]; codes: number[]; other: unknown[] }> {
  const out = { ok: [] as T[], codes: [] as number[], other: [] as unknown[] };
  for (const r of await Promise.allSettled(work)) {
    if (r.status === 'fulfilled') out.ok.push(r.value);
    else if (isSvcError(r.reason)) out.codes.push(r.reason.code);
    else out.other.push(r.reason);
  }
  return out;
}

describe.skipIf(!available)('PostgreSQL adapter: instances racing, regex, names', () => {
  let schema: TestSchema;
  let a: StorageAdapter;
  let b: StorageAdapter;
  beforeAll(async () => {
    schema = await createTestSchema('svc_pga');
    a = postgresStorage({ sql: schema.client({ max: 6 }) });
    b = postgresStorage({ sql: schema.client({ max: 6 }) });
  });
  afterAll(async () => {
    await schema?.drop();
  });

  it('an update in a transaction after a column was added: no "cached plan must not change result type"', async () => {
    const ref = { namespace: 'plan', className: 'Grows' };
    await a.ensureColumns(ref, { n: { type: 'Number' }, tags: { type: 'Array' } });
    const r = record({ n: 1 });
    await a.insert(ref, r);
    // Prepare the update statements (single and read-modify-write) on the pool's connections ...
    for (let i = 0; i < 4; i++) {
      await a.transaction(async (tx) => void (await tx.update(ref, r.objectId, [{ kind: 'increment', column: 'n', path: [], amount: 1 }], r.updatedAt)));
      await a.transaction(async (tx) => void (await tx.update(ref, r.objectId, [{ kind: 'add_unique', column: 'tags', path: [], objects: ['x'] }], r.updatedAt)));
    }
    // ... then change the row type and run the same statements inside transactions again.
    await a.ensureColumns(ref, { later: { type: 'String' } });
    for (let i = 0; i < 4; i++) {
      const after = await a.transaction(async (tx) => tx.update(ref, r.objectId, [{ kind: 'increment', column: 'n', path: [], amount: 1 }], r.updatedAt));
      expect(after).toMatchObject({ objectId: r.objectId });
      await a.transaction(async (tx) => void (await tx.update(ref, r.objectId, [{ kind: 'add_unique', column: 'tags', path: [], objects: ['y'] }], r.updatedAt)));
      await a.transaction(async (tx) => void (await tx.updateReturningBefore?.(ref, r.objectId, [{ kind: 'set', column: 'later', path: [], value: 'v' }], r.updatedAt)));
    }
    expect(await a.get(ref, r.objectId)).toMatchObject({ n: 9, tags: ['x', 'y'], later: 'v' });
  });

  it('DDL race: two instances creating the same table and columns at once both succeed, with one physical table', async () => {
    const ref = { namespace: 'ddl', className: 'Race' };
    const columns = { title: { type: 'String' }, score: { type: 'Number' }, tags: { type: 'Array' }, friends: { type: 'Relation', targetClass: 'Race' } } as const;
    const { ok, codes, other } = await settle(Array.from({ length: 16 }, (_, i) => (i % 2 ? a : b).ensureColumns(ref, columns)));
    expect(other).toEqual([]);
    expect(codes).toEqual([]);
    expect(ok).toHaveLength(16);
    // Then columns added at once from both sides.
    const added = await settle(Array.from({ length: 16 }, (_, i) => (i % 2 ? a : b).ensureColumns(ref, { [`c${i % 4}`]: { type: 'Number' } })));
    expect(added.other).toEqual([]);
    expect(added.ok).toHaveLength(16);
    const r = record({ title: 'x', score: 1, tags: ['a'], c0: 1, c1: 2, c2: 3, c3: 4 });
    // Instance a never added c0/c2 itself: the insert naming them reloads its schema.
    await a.insert(ref, r);
    // A third instance (nothing cached) reads the one table with every column of both sides.
    const c = postgresStorage({ sql: schema.client({ max: 1 }) });
    expect(await c.get(ref, r.objectId)).toEqual(r);
    expect(Object.keys((await c.getSchema(ref))!.columns).sort()).toEqual(['c0', 'c1', 'c2', 'c3', 'friends', 'score', 'tags', 'title']);
  });

  it('a table and columns recorded by another instance whose DDL has not run yet: writes in a transaction, and reads, still work', async () => {
    // What instance A leaves between its claim transaction and its DDL (or when it stops there).
    const sql = schema.client({ max: 1 });
    const claim = (column: string, type: string, target: string | null = null) =>
      compileInsertSchemaRow(postgresDialect, 'claim', 'Pending', column, type, target);
    for (const q of [claim(TABLE_MARKER, ''), claim('title', 'String'), claim('members', 'Relation', '_User')]) {
      await sql.unsafe(q.sql, q.parameters as never[]);
    }
    const ref = { namespace: 'claim', className: 'Pending' };
    const fresh = postgresStorage({ sql: schema.client({ max: 2 }) });
    const r = record({ title: 'first' });
    await fresh.transaction(async (tx) => {
      await tx.ensureColumns(ref, { title: { type: 'String' }, members: { type: 'Relation', targetClass: '_User' } });
      await tx.insert(ref, r);
      await tx.update(ref, r.objectId, [{ kind: 'add_relation', column: 'members', targetClass: '_User', ids: ['u1'] }], r.updatedAt);
    });
    expect(await fresh.get(ref, r.objectId)).toEqual(r);
    // A column recorded later by the other instance, still without DDL: a read through another instance works.
    const late = claim('late', 'Number');
    await sql.unsafe(late.sql, late.parameters as never[]);
    const reader = postgresStorage({ sql: schema.client({ max: 1 }) });
    expect(await reader.count(ref, { kind: 'exists', field: { column: 'late', path: [] }, exists: false })).toBe(1);
  });

  it('DDL race: two instances adding one column with different types: exactly one type wins, the other side gets 111', async () => {
    const ref = { namespace: 'ddl', className: 'Typed' };
    await a.ensureColumns(ref, {});
    const { ok, codes, other } = await settle([a.ensureColumns(ref, { v: { type: 'Number' } }), b.ensureColumns(ref, { v: { type: 'String' } })]);
    expect(other).toEqual([]);
    expect(ok).toHaveLength(1);
    expect(codes).toEqual([111]);
    const type = ok[0]!.columns.v!.type;
    expect((await a.getSchema(ref))!.columns.v!.type).toBe(type);
    await a.insert(ref, record({ v: type === 'Number' ? 1 : 'one' }));
  });

  it('a unique value raced from two instances is stored once; every loser gets 401', async () => {
    const ref = { namespace: 'uniq', className: '_User' };
    await a.ensureColumns(ref, { username: { type: 'String' } });
    await a.createIndex(ref, { name: 'username_unique', columns: ['username'], unique: true });
    await b.createIndex(ref, { name: 'username_unique', columns: ['username'], unique: true });
    const { ok, codes, other } = await settle(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).insert(ref, record({ username: 'same' }))));
    expect(other).toEqual([]);
    expect(ok).toHaveLength(1);
    expect(codes).toEqual(Array(39).fill(401));
    expect(await a.count(ref, { kind: 'all_records' })).toBe(1);
  });

  it('400 increments raced from two instances add exactly 400; array adds from both lose nothing', async () => {
    const ref = { namespace: 'incr', className: 'Counter' };
    await a.ensureColumns(ref, { hits: { type: 'Number' }, seen: { type: 'Array' } });
    const r = record({ hits: 0 });
    await a.insert(ref, r);
    const at = dateValue(Date.UTC(2026, 1, 1));
    await Promise.all(Array.from({ length: 400 }, (_, i) => (i % 2 ? a : b).update(ref, r.objectId, [{ kind: 'increment', column: 'hits', path: [], amount: 1 }], at)));
    await Promise.all(Array.from({ length: 60 }, (_, i) => (i % 2 ? a : b).update(ref, r.objectId, [{ kind: 'add', column: 'seen', path: [], objects: [i] }], at)));
    const got = await b.get(ref, r.objectId);
    expect(got?.hits).toBe(400);
    expect([...(got?.seen as number[])].sort((x, y) => x - y)).toEqual(Array.from({ length: 60 }, (_, i) => i));
  });

  it('a column added by one instance shows up in the reads of another once its schema cache expires', async () => {
    const clock = new FakeClock(Date.UTC(2026, 0, 1));
    const sql = schema.client({ max: 2 });
    const cached = postgresStorage({ sql, clock, schemaCacheMs: 1000 });
    const ref = { namespace: 'cache', className: 'Item' };
    await a.ensureColumns(ref, { x: { type: 'Number' } });
    const r = record({ x: 1 });
    await a.insert(ref, r);
    expect(await cached.get(ref, r.objectId)).toEqual(r);
    await a.ensureColumns(ref, { y: { type: 'String' } });
    await a.update(ref, r.objectId, [{ kind: 'set', column: 'y', path: [], value: 'new' }], r.updatedAt);
    expect((await cached.get(ref, r.objectId))?.y).toBeUndefined();
    clock.advance(1001);
    expect((await cached.get(ref, r.objectId))?.y).toBe('new');
  });

  it('a column or table dropped by one instance: another whose cache still names it reads, writes and re-adds without an error', async () => {
    // A cache that never expires by itself: only the failed statement can tell this instance.
    const clock = new FakeClock(Date.UTC(2026, 0, 1));
    const instance = () => postgresStorage({ sql: schema.client({ max: 1 }), clock, schemaCacheMs: 3_600_000 });
    const stale = instance();
    const staleWriter = instance();
    const ref = { namespace: 'drops', className: 'Note' };
    await a.ensureColumns(ref, { title: { type: 'String' }, n: { type: 'Number' } });
    const first = record({ title: 'a', n: 1 });
    await a.insert(ref, first);
    // The stale instance prepares its statements while `title` is a String ...
    expect(await staleWriter.get(ref, first.objectId)).toEqual(first);
    for (let i = 0; i < 3; i++) {
      expect(await stale.get(ref, first.objectId)).toEqual(first);
      expect(await stale.count(ref, { kind: 'compare', field: { column: 'title', path: [] }, op: 'eq', value: 'a' })).toBe(1);
    }
    // ... another drops it: reads answer without it, and counts over it match nothing.
    expect(await b.dropColumn!(ref, 'title')).toBe(true);
    const { title: _gone, ...rest } = first;
    expect(await stale.get(ref, first.objectId)).toEqual(rest);
    expect(await stale.find(ref, { where: { kind: 'all_records' }, order: [], skip: 0, limit: 10, projection: { kind: 'all' } })).toEqual([rest]);
    // A write of an instance whose cache still names it (so its ensureColumns added nothing) adds it back, as a new column would be.
    const second = record({ title: 'b', n: 2 });
    await staleWriter.ensureColumns(ref, { title: { type: 'String' }, n: { type: 'Number' } });
    await staleWriter.insert(ref, second);
    expect(await a.get(ref, second.objectId)).toEqual(second);
    // Dropped again, and added back as a Number by another instance: the stale instance's prepared
    // statements over `title` must not keep their text parameter type.
    await b.dropColumn!(ref, 'title');
    await b.ensureColumns(ref, { title: { type: 'Number' } });
    const third = record({ title: 3, n: 3 });
    await b.insert(ref, third);
    clock.advance(3_600_001); // the stale instance now reads the new schema; its connection still holds the old statements
    expect(await stale.count(ref, { kind: 'compare', field: { column: 'title', path: [] }, op: 'eq', value: 3 })).toBe(1);
    await stale.update(ref, third.objectId, [{ kind: 'set', column: 'title', path: [], value: 4 }], third.updatedAt);
    expect((await b.get(ref, third.objectId))?.title).toBe(4);
    // The whole table dropped: a stale instance reads nothing, and a write of one whose cache still
    // has the table makes it again.
    expect(await staleWriter.get(ref, third.objectId)).toEqual({ ...third, title: 4, updatedAt: third.updatedAt });
    expect(await b.dropTable!(ref)).toBe(true);
    expect(await stale.get(ref, third.objectId)).toBeNull();
    expect(await stale.count(ref, { kind: 'all_records' })).toBe(0);
    const fourth = record({ n: 4 });
    await staleWriter.ensureColumns(ref, { n: { type: 'Number' } });
    await staleWriter.insert(ref, fourth);
    expect(await b.get(ref, fourth.objectId)).toEqual(fourth);
  });

  it('class and column names past 63 bytes work (hashed physical names) and never meet', async () => {
    // The longest valid names (64 characters): the physical table `names__<class>` and the join and
    // GeoPoint columns go past PostgreSQL's 63 bytes.
    const long1 = `L${'o'.repeat(60)}ng1`;
    const long2 = `L${'o'.repeat(60)}ng2`;
    const column1 = `c${'x'.repeat(62)}1`;
    const column2 = `c${'x'.repeat(62)}2`;
    const ref1 = { namespace: 'names', className: long1 };
    const ref2 = { namespace: 'names', className: long2 };
    await a.ensureColumns(ref1, { [column1]: { type: 'Number' }, [column2]: { type: 'String' }, [`g${column1.slice(1)}`]: { type: 'GeoPoint' }, [`r${column1.slice(1)}`]: { type: 'Relation', targetClass: long2 } });
    await a.ensureColumns(ref2, { [column1]: { type: 'String' } });
    await a.createIndex(ref1, { name: 'by_long', columns: [column1], unique: true });
    const r1 = record({ [column1]: 5, [column2]: 'five', [`g${column1.slice(1)}`]: { __type: 'GeoPoint', latitude: 1, longitude: 2 } });
    const r2 = record({ [column1]: 'other' });
    await a.insert(ref1, r1);
    await a.insert(ref2, r2);
    expect(await b.get(ref1, r1.objectId)).toEqual(r1);
    expect(await b.get(ref2, r2.objectId)).toEqual(r2);
    const updated = await b.update(ref1, r1.objectId, [{ kind: 'increment', column: column1, path: [], amount: 2 }], r1.updatedAt);
    expect(updated?.[column1]).toBe(7);
    const where: WhereNode = { kind: 'compare', op: 'gt', field: { column: column1, path: [] }, value: 6 };
    expect((await b.find(ref1, { where, order: [], skip: 0, limit: 10, projection: { kind: 'all' } } as never)).map((r) => r.objectId)).toEqual([r1.objectId]);
    await b.update(ref1, r1.objectId, [{ kind: 'add_relation', column: `r${column1.slice(1)}`, targetClass: long2, ids: [r2.objectId] }], r1.updatedAt);
    const related: WhereNode = { kind: 'related_to', owner: { __type: 'Pointer', className: long1, objectId: r1.objectId }, key: `r${column1.slice(1)}` };
    expect((await b.find(ref2, { where: related, order: [], skip: 0, limit: 10, projection: { kind: 'all' } } as never)).map((r) => r.objectId)).toEqual([r2.objectId]);
    const dup = record({ [column1]: 7 });
    await expect(a.insert(ref1, dup)).rejects.toMatchObject({ code: 401 });
    await a.dropNamespace('names');
    expect(await a.getSchema(ref1)).toBeNull();
  });

  describe('$regex means what the safe regex means', () => {
    const TEXTS = ['', 'a', 'ab', 'Ab\nc', 'line1\nline2', 'x y', 'é', 'É', 'ÉCOLE', '𝄞', 'a𝄞b', '𝄞𝄞', '😀x', "it's", 'word boundary', 'under_score', '123-456', 'tab\there', 'ſ', 'K', '\u2028x', 'aaaa'.repeat(80)];
    const PATTERNS: Array<[string, string]> = [
      ['^a', ''], ['b$', ''], ['^.{2}$', ''], ['^.$', ''], ['a.b', ''], ['.', 's'], ['^[^a]$', ''], ['\\D', ''], ['\\W\\W', ''],
      ['^line2$', 'm'], ['^line2$', ''], ['1$', 'm'], ['^x', 'm'], ['\\bword\\b', ''], ['\\Bnd', ''], ['o\\b', ''], ['\\w+_\\w+', ''],
      ['école', 'i'], ['é', 'i'], ['k', 'i'], ['s', 'i'], ['[a-c]+', 'i'], ['\\d{3}-\\d{3}', ''], ['\\s', ''], ['c$', 'ims'],
      ['(a|b)+', ''], ['^(?:a{2}){160}$', ''], ['^a{300,}$', ''], ['^a{0,400}$', ''], ['a{2,3}?b', ''], ["'", ''], ['𝄞', ''], ['\\ud834', ''], ['[\\ud834-\\udfff]', ''],
      ['[^\\s\\S]', ''], ['^$', ''], ['x|^$', ''],
    ];
    it('every pattern × text agrees with the reference matcher', async () => {
      const ref = { namespace: 'rx', className: 'Text' };
      await a.ensureColumns(ref, { t: { type: 'String' }, list: { type: 'Array' } });
      const ids = new Map<string, string>();
      for (const text of TEXTS) {
        const r = record({ t: text, list: [text] });
        ids.set(r.objectId, text);
        await a.insert(ref, r);
      }
      for (const [pattern, flags] of PATTERNS) {
        const safe = compileSafeRegex(pattern, flags);
        const expected = TEXTS.filter((t) => safe.test(t)).sort();
        for (const column of ['t', 'list']) {
          const where: WhereNode = { kind: 'regex', field: { column, path: [] }, pattern, flags } as WhereNode;
          const rows = await a.find(ref, { where, order: [], skip: 0, limit: 100, projection: { kind: 'all' } } as never);
          expect(rows.map((r) => ids.get(r.objectId)!).sort(), `/${pattern}/${flags} on ${column}`).toEqual(expected);
        }
      }
    });

    it('patterns the safe regex refuses are refused with the same codes', async () => {
      const ref = { namespace: 'rx', className: 'Text' };
      for (const [pattern, code] of [['(a)\\1', 11021], ['(?=a)', 11021], ['[', 102]] as const) {
        const where = { kind: 'regex', field: { column: 't', path: [] }, pattern, flags: '' } as WhereNode;
        await expect(a.count(ref, where)).rejects.toMatchObject({ code });
      }
    });
  });
});
