import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { type Acl } from '../../src/access/acl.js';
import { aclAllows, principalsOf } from '../../src/access/principals.js';
import { dateValue, type StoredRecord, type Value } from '../../src/core/values.js';
import type { FindPlan, WhereNode } from '../../src/query/plan.js';
import { ACL_READ_COLUMN, aclReadText } from '../../src/query/sql/acl-read-column.js';
import { openSqlite, sqliteStorage } from '../../src/storage/sqlite/index.js';

/**
 * D147: on SQLite, declared indexes of a table with an ACL carry `ACL$read` last, a count whose where
 * pins such an index adds up one count per branch of the ACL filter (each an index range), single
 * read principals are kept as themselves, and files written before are brought up to date on open.
 */

const dir = mkdtempSync(join(tmpdir(), 'svcbase-acl-index-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const runs = Number(process.env.FC_RUNS ?? 60);
const ref = { namespace: 'app', className: 'Post' };
const TABLE = 'app__Post';
const at = dateValue(Date.UTC(2026, 0, 1));

const USERS = ['u1', 'u2', '-dash'];
const ROLES = Array.from({ length: 11 }, (_, i) => `r${i}`).concat(['c d']);
const PRINCIPALS = [...USERS, ...ROLES.map((r) => `role:${r}`)];

const post = (i: number, category: number, score: number, acl: Acl | undefined): StoredRecord =>
  ({ objectId: `p${String(i).padStart(3, '0')}`, createdAt: at, updatedAt: at, category, score, title: `t${i}`, ...(acl ? { ACL: acl as unknown as Value } : {}) }) as StoredRecord;

const grant = fc.constantFrom({ read: true } as const, { read: true, write: true } as const, { write: true } as const);
const acl: fc.Arbitrary<Acl | undefined> = fc.oneof(
  fc.constant(undefined),
  fc.constant({ '*': { read: true } } as Acl),
  fc.constantFrom(...PRINCIPALS).map((p): Acl => ({ [p]: { read: true, write: true } })),
  fc.dictionary(fc.constantFrom('*', ...PRINCIPALS), grant, { maxKeys: 4 }) as fc.Arbitrary<Acl>,
);
const posts = fc.array(fc.tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 9 }), acl), { maxLength: 40 });
/** Anonymous, a user alone, a user with a few roles, a user with more roles than a chain of `=` holds. */
const caller = fc.tuple(fc.option(fc.constantFrom(...USERS), { nil: null }), fc.subarray(ROLES)).map(([user, roles]) => principalsOf(user, roles));

const eq = (column: string, value: Value): WhereNode => ({ kind: 'compare', op: 'eq', field: { column, path: [] }, value });
const gte = (column: string, value: Value): WhereNode => ({ kind: 'compare', op: 'gte', field: { column, path: [] }, value });
const and = (...nodes: WhereNode[]): WhereNode => ({ kind: 'and', nodes });

function indexColumns(db: Database.Database, name: string): string[] {
  return (db.prepare(`SELECT "name" FROM pragma_index_info(?) ORDER BY "seqno"`).all(`${TABLE}$ix$${name}`) as Array<{ name: string }>).map((row) => row.name);
}

/** Every row's `ACL$read` against what aclReadText says for its ACL. */
function disagreements(db: Database.Database): string[] {
  const rows = db.prepare(`SELECT "objectId", "ACL", "${ACL_READ_COLUMN}" AS "read" FROM "${TABLE}"`).all() as Array<{ objectId: string; ACL: string | null; read: string | null }>;
  return rows.filter((r) => r.read !== aclReadText(r.ACL === null ? null : (JSON.parse(r.ACL) as Value))).map((r) => `${r.objectId}: ${String(r.read)}`);
}

const byId = (where: WhereNode): FindPlan => ({ where, order: [{ field: { column: 'objectId', path: [] }, descending: false }], limit: 1000, skip: 0, projection: { kind: 'all' } });

describe('ACL$read in indexes (SQLite, D147)', () => {
  it('is the last column of each non-unique declared index while the table has an ACL column, and of no unique one', async () => {
    const db = new Database(':memory:');
    const storage = sqliteStorage({ database: db, closeDatabase: false });
    await storage.ensureColumns(ref, { category: { type: 'Number' }, score: { type: 'Number' }, title: { type: 'String' } });
    await storage.createIndex(ref, { name: 'by_category', columns: ['category'], unique: false });
    await storage.createIndex(ref, { name: 'by_title', columns: ['title'], unique: true });
    expect(indexColumns(db, 'by_category')).toEqual(['category']);
    // The ACL column arrives after the indexes: they are made again with ACL$read.
    await storage.ensureColumns(ref, { ACL: { type: 'Object' } });
    expect(indexColumns(db, 'by_category')).toEqual(['category', ACL_READ_COLUMN]);
    expect(indexColumns(db, 'by_title')).toEqual(['title']);
    await storage.createIndex(ref, { name: 'by_both', columns: ['category', 'title'], unique: false });
    expect(indexColumns(db, 'by_both')).toEqual(['category', 'title', ACL_READ_COLUMN]);
    await storage.insert(ref, post(1, 1, 1, { u1: { read: true } }));
    // Dropping the ACL column takes ACL$read out of the indexes first (SQLite drops no indexed column).
    await storage.dropColumn!(ref, 'ACL');
    expect(indexColumns(db, 'by_category')).toEqual(['category']);
    expect(indexColumns(db, 'by_both')).toEqual(['category', 'title']);
    const columns = (db.prepare(`PRAGMA table_info("${TABLE}")`).all() as Array<{ name: string }>).map((c) => c.name);
    expect(columns).not.toContain(ACL_READ_COLUMN);
    expect(await storage.count(ref, eq('category', 1))).toBe(1);
    await storage.close();
    db.close();
  });

  it('comes right after the built-in columns of a table made with an ACL column', async () => {
    const db = new Database(':memory:');
    const storage = sqliteStorage({ database: db, closeDatabase: false });
    await storage.ensureColumns(ref, { category: { type: 'Number' }, ACL: { type: 'Object' } });
    const columns = (db.prepare(`PRAGMA table_info("${TABLE}")`).all() as Array<{ name: string }>).map((c) => c.name);
    expect(columns).toEqual(['objectId', 'createdAt', 'updatedAt', ACL_READ_COLUMN, 'category', 'ACL']);
    await storage.close();
    db.close();
  });

  it('answers a count by an indexed column from index ranges only, and every count and find agrees with the ACL rules (property)', async () => {
    let branchCounts = 0;
    await fc.assert(
      fc.asyncProperty(posts, caller, fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 9 }), async (rows, principals, category, score) => {
        const log: string[] = [];
        const db = new Database(':memory:', { verbose: (statement) => log.push(String(statement)) });
        const storage = sqliteStorage({ database: db, closeDatabase: false });
        try {
          await storage.ensureColumns(ref, { category: { type: 'Number' }, score: { type: 'Number' }, title: { type: 'String' }, ACL: { type: 'Object' } });
          await storage.createIndex(ref, { name: 'by_category', columns: ['category'], unique: false });
          const records = rows.map(([c, s, a], i) => post(i, c, s, a));
          for (const record of records) await storage.insert(ref, record);
          const filter: WhereNode = { kind: 'acl_read', principals: principals.keys };
          const cases: Array<[WhereNode, (r: StoredRecord) => boolean]> = [
            [eq('category', category), (r) => r['category'] === category],
            [and(eq('category', category), gte('score', score)), (r) => r['category'] === category && (r['score'] as number) >= score],
            [gte('category', category), (r) => (r['category'] as number) >= category],
            [{ kind: 'all_records' }, () => true],
          ];
          for (const [rest, matches] of cases) {
            const where = rest.kind === 'all_records' ? filter : and(rest, filter);
            const expected = records.filter((r) => matches(r) && aclAllows(r['ACL'] as Acl | undefined, principals, 'read')).map((r) => r.objectId);
            log.length = 0;
            expect(await storage.count(ref, where)).toBe(expected.length);
            const ran = log.filter((statement) => statement.startsWith('SELECT (SELECT COUNT(*)'));
            // An equality on the indexed column with a signed-in caller: one count per branch, each an index range.
            if (rest.kind === 'compare' && rest.op === 'eq' && principals.keys.length > 1) {
              expect(ran).toHaveLength(1);
              const plan = (db.prepare(`EXPLAIN QUERY PLAN ${ran[0]!}`).all() as Array<{ detail: string }>).map((step) => step.detail).filter((d) => d.startsWith('S'));
              // Everyone, each principal (or one list of them past 8), several.
              const named = principals.keys.length - 1;
              expect(plan.filter((d) => d.startsWith('SEARCH t0')).length).toBe(named > 8 ? 3 : 2 + named);
              for (const step of plan.filter((d) => d.startsWith('SEARCH t0'))) expect(step).toMatch(/^SEARCH t0 USING COVERING INDEX app__Post\$ix\$by_category \(category=\? AND ACL\$read[=<]\?\)/);
              branchCounts++;
            }
            expect(((await storage.find(ref, byId(where))) as StoredRecord[]).map((r) => r.objectId)).toEqual(expected);
          }
        } finally {
          await storage.close();
          db.close();
        }
      }),
      { seed: Number(process.env.FC_SEED ?? 20261128), numRuns: runs },
    );
    expect(branchCounts).toBeGreaterThan(0);
  });

  it('sorts first and filters after in an ACL-filtered find that scans and sorts the table, and agrees with the ACL rules (property)', async () => {
    let topFirst = 0;
    await fc.assert(
      fc.asyncProperty(posts, caller, fc.integer({ min: 0, max: 9 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 0, max: 4 }), fc.boolean(), async (rows, principals, score, limit, skip, descending) => {
        const log: string[] = [];
        const db = new Database(':memory:', { verbose: (statement) => log.push(String(statement)) });
        const storage = sqliteStorage({ database: db, closeDatabase: false });
        try {
          await storage.ensureColumns(ref, { category: { type: 'Number' }, score: { type: 'Number' }, title: { type: 'String' }, ACL: { type: 'Object' } });
          const records = rows.map(([c, s, a], i) => post(i, c, s, a));
          for (const record of records) await storage.insert(ref, record);
          const where = and(gte('score', score), { kind: 'acl_read', principals: principals.keys });
          const plan: FindPlan = { where, order: [{ field: { column: 'score', path: [] }, descending }], limit, skip, projection: { kind: 'all' } };
          const byScore = (a: StoredRecord, b: StoredRecord) => ((a['score'] as number) - (b['score'] as number)) * (descending ? -1 : 1) || (a.objectId < b.objectId ? -1 : 1);
          const expected = records
            .filter((r) => (r['score'] as number) >= score && aclAllows(r['ACL'] as Acl | undefined, principals, 'read'))
            .sort(byScore)
            .slice(skip, skip + limit)
            .map((r) => r.objectId);
          // Twice: a short first answer sends the next find of the shape straight to the one-statement form.
          for (let round = 0; round < 2; round++) {
            log.length = 0;
            expect(((await storage.find(ref, plan)) as StoredRecord[]).map((r) => r.objectId)).toEqual(expected);
            if (log.some((statement) => statement.startsWith('SELECT t1.'))) topFirst++;
          }
        } finally {
          await storage.close();
          db.close();
        }
      }),
      { seed: Number(process.env.FC_SEED ?? 20261128), numRuns: runs },
    );
    expect(topFirst).toBeGreaterThan(0);
  });

  it('runs the one-statement find when readable records lie beyond the first ones sorted', async () => {
    const log: string[] = [];
    const db = new Database(':memory:', { verbose: (statement) => log.push(String(statement)) });
    const storage = sqliteStorage({ database: db, closeDatabase: false });
    await storage.ensureColumns(ref, { category: { type: 'Number' }, score: { type: 'Number' }, title: { type: 'String' }, ACL: { type: 'Object' } });
    // The 30 best scores are someone else's; u1 reads three records further down.
    for (let i = 0; i < 30; i++) await storage.insert(ref, post(i, 0, 100 + i, { u2: { read: true } }));
    for (let i = 30; i < 33; i++) await storage.insert(ref, post(i, 0, i, { u1: { read: true } }));
    const plan: FindPlan = { where: and(gte('score', 0), { kind: 'acl_read', principals: ['*', 'u1'] }), order: [{ field: { column: 'score', path: [] }, descending: true }], limit: 2, skip: 0, projection: { kind: 'all' } };
    expect(((await storage.find(ref, plan)) as StoredRecord[]).map((r) => r.objectId)).toEqual(['p032', 'p031']);
    expect(log.filter((statement) => statement.startsWith('SELECT t1.'))).toHaveLength(1);
    expect(log.filter((statement) => statement.startsWith('SELECT t0.'))).toHaveLength(1);
    // The shape's next 32 finds skip the first step; then it is tried again.
    log.length = 0;
    for (let i = 0; i < 32; i++) await storage.find(ref, plan);
    expect(log.filter((statement) => statement.startsWith('SELECT t1.'))).toHaveLength(0);
    // Enough readable records among the first 4 x (skip + limit): one statement.
    const mine: FindPlan = { ...plan, where: and(gte('score', 0), { kind: 'acl_read', principals: ['*', 'u2'] }) };
    log.length = 0;
    expect(((await storage.find(ref, mine)) as StoredRecord[]).map((r) => r.objectId)).toEqual(['p029', 'p028']);
    expect(log.filter((statement) => statement.startsWith('SELECT t1.'))).toHaveLength(1);
    expect(log.filter((statement) => statement.startsWith('SELECT t0.'))).toHaveLength(0);
    await storage.close();
    db.close();
  });

  it('gives the same answers when a count or a find runs on a reader worker', async () => {
    // A 1 ms stall bound makes 9,000 rows a large table; 4,500 per category is more than the match probe counts.
    const storage = openSqlite(join(dir, 'workers.db'), { stallBoundMs: 1 });
    try {
      await storage.ensureColumns(ref, { category: { type: 'Number' }, score: { type: 'Number' }, title: { type: 'String' }, ACL: { type: 'Object' } });
      await storage.createIndex(ref, { name: 'by_category', columns: ['category'], unique: false });
      const acls: Array<Acl | undefined> = [undefined, { u1: { read: true } }, { 'role:r1': { read: true } }, { u2: { read: true }, u1: { read: true } }, { u3: { read: true } }];
      const records = Array.from({ length: 9000 }, (_, i) => post(i, i % 2, (i * 7) % 1000, acls[i % acls.length]));
      await storage.transaction(async (tx) => {
        for (const record of records) await tx.insert(ref, record);
      });
      for (const principals of [principalsOf('u1'), principalsOf('u3', ['r1'])]) {
        const readable = (r: StoredRecord) => aclAllows(r['ACL'] as Acl | undefined, principals, 'read');
        const filter: WhereNode = { kind: 'acl_read', principals: principals.keys };
        expect(await storage.count(ref, and(eq('category', 1), filter))).toBe(records.filter((r) => r['category'] === 1 && readable(r)).length);
        const plan: FindPlan = { where: and(gte('score', 500), filter), order: [{ field: { column: 'score', path: [] }, descending: true }], limit: 10, skip: 3, projection: { kind: 'all' } };
        const expected = records
          .filter((r) => (r['score'] as number) >= 500 && readable(r))
          .sort((a, b) => (b['score'] as number) - (a['score'] as number) || (a.objectId < b.objectId ? -1 : 1))
          .slice(3, 13)
          .map((r) => r.objectId);
        expect(((await storage.find(ref, plan)) as StoredRecord[]).map((r) => r.objectId)).toEqual(expected);
      }
    } finally {
      await storage.close();
    }
  });

  it('brings a file written before up to date on open: single principals as themselves, indexes with ACL$read; reads agree before and after', async () => {
    const file = join(dir, 'before-d140.db');
    const acls: Array<Acl | undefined> = [undefined, { '*': { read: true } }, { u1: { read: true, write: true } }, { 'role:r1': { read: true } }, { u2: { read: true }, 'role:r1': { read: true } }, {}];
    const records = Array.from({ length: 300 }, (_, i) => post(i, i % 4, i % 10, acls[i % acls.length]));
    {
      const storage = sqliteStorage({ database: new Database(file), readers: 0 });
      await storage.ensureColumns(ref, { category: { type: 'Number' }, score: { type: 'Number' }, title: { type: 'String' }, ACL: { type: 'Object' } });
      await storage.createIndex(ref, { name: 'by_category', columns: ['category'], unique: false });
      await storage.createIndex(ref, { name: 'by_title', columns: ['title'], unique: true });
      await storage.transaction(async (tx) => {
        for (const record of records) await tx.insert(ref, record);
      });
      await storage.close();
    }
    // What a file written before D147 holds: `,<principal>,` for one principal, indexes without ACL$read, no format row.
    const old = new Database(file);
    old.exec(`UPDATE "${TABLE}" SET "${ACL_READ_COLUMN}" = ',' || "${ACL_READ_COLUMN}" || ',' WHERE "${ACL_READ_COLUMN}" >= '-'`);
    old.exec(`DROP INDEX "${TABLE}$ix$by_category"; CREATE INDEX "${TABLE}$ix$by_category" ON "${TABLE}" ("category")`);
    old.exec(`DELETE FROM "_svc_format"`);
    expect(disagreements(old)).toHaveLength(100);
    old.close();

    const model = (principals: ReturnType<typeof principalsOf>, category: number) =>
      records.filter((r) => r['category'] === category && aclAllows(r['ACL'] as Acl | undefined, principals, 'read')).map((r) => r.objectId);
    const callers = [principalsOf(null), principalsOf('u1'), principalsOf('u2', ['r1']), principalsOf('u3', ['r2', 'r1'])];

    const db = new Database(file);
    const storage = sqliteStorage({ database: db, closeDatabase: false, readers: 0 });
    expect(disagreements(db)).toEqual([]);
    expect(indexColumns(db, 'by_category')).toEqual(['category', ACL_READ_COLUMN]);
    expect(indexColumns(db, 'by_title')).toEqual(['title']);
    expect(db.prepare(`SELECT "name", "version" FROM "_svc_format"`).all()).toEqual([{ name: 'acl_read', version: 2 }]);
    for (const principals of callers) {
      for (const category of [0, 1, 2, 3]) {
        const where = and(eq('category', category), { kind: 'acl_read', principals: principals.keys });
        expect(await storage.count(ref, where)).toBe(model(principals, category).length);
        expect(((await storage.find(ref, byId(where))) as StoredRecord[]).map((r) => r.objectId)).toEqual(model(principals, category));
      }
    }
    // A single principal still in the old form (written by an older version after the upgrade) reads right, only without a seek.
    db.exec(`UPDATE "${TABLE}" SET "${ACL_READ_COLUMN}" = ',' || "${ACL_READ_COLUMN}" || ',' WHERE "${ACL_READ_COLUMN}" >= '-'`);
    for (const principals of callers) {
      const where = and(eq('category', 2), { kind: 'acl_read', principals: principals.keys });
      expect(await storage.count(ref, where)).toBe(model(principals, 2).length);
      expect(((await storage.find(ref, byId(where))) as StoredRecord[]).map((r) => r.objectId)).toEqual(model(principals, 2));
    }
    await storage.close();
    // Opening an up-to-date file changes nothing.
    const again = new Database(file);
    const before = again.pragma('schema_version', { simple: true });
    const reopened = sqliteStorage({ database: again, closeDatabase: false, readers: 0 });
    expect(again.pragma('schema_version', { simple: true })).toBe(before);
    await reopened.close();
    again.close();
  });
});
