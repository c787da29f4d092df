import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredRecord, Value } from '../../src/core/values.js';
import type { PgClient } from '../../src/storage/postgres/index.js';
import { postgresStorage } from '../../src/storage/postgres/index.js';
import type { StorageAdapter } from '../../src/storage/port.js';
import { BENCH_COLUMNS, BENCH_INDEXES, CLASS_NAME, makeRecords } from '../../bench/data.js';
import { type UsersServer, startUsersServer } from '../users/users-server.js';
import { type TestSchema, createTestSchema, postgresAvailable } from './pg-test-db.js';

/**
 * The plans PostgreSQL runs for the query shapes of the REST and access bench rows (issue 37, D160,
 * D161), on 5,000 analyzed records served over HTTP: GET by id, a list `where score >= x` ordered by
 * score (both directions, limit 20), a count by category, and the list and count as a signed-in
 * user whose ACL filter applies. Each statement the service sends for the Bench table is recorded
 * and explained twice with its parameters: as planned for those values (EXPLAIN ANALYZE) and as the
 * generic plan a prepared statement settles on (PREPARE under `plan_cache_mode =
 * force_generic_plan`). A plan fails when it sorts more rows than it returns (the index does not
 * serve the order) or reads the table sequentially for a predicate an index serves.
 */
const available = await postgresAvailable('pg-plans');

const ROWS = 5000;
const NAMESPACE = 'test_app';
const TABLE = `${NAMESPACE}__${CLASS_NAME}`;

interface Recorded {
  readonly sql: string;
  readonly parameters: readonly unknown[];
}

/** A client that records the statements naming the Bench table while `recording` is set. */
function recordingClient(inner: PgClient, log: Recorded[], recording: { on: boolean }): PgClient {
  return {
    unsafe(query, parameters, options) {
      if (recording.on && query.includes(`"${TABLE}"`) && /^\s*SELECT/i.test(query)) log.push({ sql: query, parameters: parameters ?? [] });
      return inner.unsafe(query, parameters, options);
    },
    reserve: () => inner.reserve(),
    end: (options) => inner.end(options),
  };
}

interface PlanNode {
  readonly 'Node Type': string;
  readonly 'Relation Name'?: string;
  readonly 'Actual Rows'?: number;
  readonly 'Actual Loops'?: number;
  readonly 'Presorted Key'?: readonly string[];
  readonly Plans?: readonly PlanNode[];
}

/** Rows an Incremental Sort reads at least before it sorts a batch (PostgreSQL's DEFAULT_MIN_GROUP_SIZE). */
const INCREMENTAL_BATCH = 32;

const rowsOut = (node: PlanNode): number => (node['Actual Rows'] ?? 0) * (node['Actual Loops'] ?? 1);

/** What is wrong with a plan tree: Sort nodes fed more rows than they return, sequential scans of the Bench table. */
function planFaults(node: PlanNode, faults: string[] = []): string[] {
  const type = node['Node Type'];
  if (type === 'Seq Scan' && node['Relation Name'] === TABLE) faults.push(`Seq Scan on ${TABLE}`);
  const fed = (node.Plans ?? []).reduce((sum, child) => sum + rowsOut(child), 0);
  if (type === 'Sort' && fed > rowsOut(node)) faults.push(`Sort of ${fed} rows returning ${rowsOut(node)}`);
  // A descending find walks its index backward; its objectId tie-break stays ascending, so
  // PostgreSQL sorts each group of equal keys as it goes (D160): at most one batch beyond the answer.
  if (type === 'Incremental Sort' && (!node['Presorted Key'] || fed > rowsOut(node) + INCREMENTAL_BATCH)) faults.push(`Incremental Sort of ${fed} rows returning ${rowsOut(node)}`);
  for (const child of node.Plans ?? []) planFaults(child, faults);
  return faults;
}

/** A parameter as an SQL literal (numbers, strings, arrays of strings: what these shapes bind). */
function literal(value: unknown): string {
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (typeof value === 'string') return `'${value.replace(/'/g, "''")}'`;
  if (Array.isArray(value)) return `ARRAY[${value.map(literal).join(', ')}]::text[]`;
  throw new Error(`no literal for ${JSON.stringify(value)}`);
}

describe.skipIf(!available)('PostgreSQL plans of the bench rows', () => {
  let schema: TestSchema;
  let server: UsersServer;
  let storage: StorageAdapter;
  let admin: PgClient & import('postgres').Sql;
  let user = { objectId: '', sessionToken: '' };
  const log: Recorded[] = [];
  const recording = { on: false };

  beforeAll(async () => {
    schema = await createTestSchema('svc_plans');
    admin = schema.client({ max: 1 });
    storage = postgresStorage({ sql: recordingClient(schema.client({ max: 4 }), log, recording) });
    server = await startUsersServer({ storage });
    user = await server.signUp({ username: 'reader', password: 'pw' });
    const ref = { namespace: NAMESPACE, className: CLASS_NAME };
    await storage.ensureColumns(ref, { ...BENCH_COLUMNS, ACL: { type: 'Object' } });
    for (const index of BENCH_INDEXES) await storage.createIndex(ref, { name: index.name, columns: [...index.columns], unique: index.unique });
    // Most records public; one in ten the reader's own, one in ten another user's, one in twenty a role's.
    const records = makeRecords(ROWS, 3).map((record, i): StoredRecord => {
      const acl: Record<string, Value> | undefined = i % 10 === 1 ? { [user.objectId]: { read: true, write: true } } : i % 10 === 2 ? { someoneElse: { read: true } } : i % 20 === 3 ? { 'role:mods': { read: true } } : undefined;
      return acl ? { ...record, ACL: acl } : record;
    });
    await storage.transaction(async (tx) => {
      for (const record of records) await tx.insert(ref, record);
    });
    await admin.unsafe(`VACUUM ANALYZE "${TABLE}"`);
  }, 120_000);

  afterAll(async () => {
    await server?.close();
    await schema?.drop();
  });

  /** The statements the service sends for one request. */
  async function statementsOf(token: string | null, path: string): Promise<Recorded[]> {
    log.length = 0;
    recording.on = true;
    const response = await server.as(token, 'GET', path);
    recording.on = false;
    expect(response.status).toBe(200);
    expect(log.length).toBeGreaterThan(0);
    return [...log];
  }

  async function faultsOf(statement: Recorded): Promise<string[]> {
    const custom = (await admin.unsafe(`EXPLAIN (ANALYZE, FORMAT JSON) ${statement.sql}`, statement.parameters as never[]))[0]!['QUERY PLAN'] as Array<{ Plan: PlanNode }>;
    const generic = await admin.begin(async (tx) => {
      await tx.unsafe(`SET LOCAL plan_cache_mode = force_generic_plan`);
      await tx.unsafe(`PREPARE svc_plan AS ${statement.sql}`);
      const args = statement.parameters.length > 0 ? `(${statement.parameters.map(literal).join(', ')})` : '';
      const rows = await tx.unsafe(`EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE svc_plan${args}`);
      await tx.unsafe(`DEALLOCATE svc_plan`);
      return rows[0]!['QUERY PLAN'] as Array<{ Plan: PlanNode }>;
    });
    return [...planFaults(custom[0]!.Plan).map((f) => `custom: ${f}`), ...planFaults(generic[0]!.Plan).map((f) => `generic: ${f}`)];
  }

  const where = (w: unknown) => encodeURIComponent(JSON.stringify(w));
  const shapes: ReadonlyArray<readonly [name: string, signedIn: boolean, path: () => string]> = [
    ['GET by id', false, () => `/1/classes/${CLASS_NAME}/${firstId}`],
    ['list score >= x order score limit 20', false, () => `/1/classes/${CLASS_NAME}?where=${where({ score: { $gte: 400_000 } })}&order=score&limit=20`],
    ['list score >= x order -score limit 20', false, () => `/1/classes/${CLASS_NAME}?where=${where({ score: { $gte: 400_000 } })}&order=-score&limit=20`],
    ['count category = c', false, () => `/1/classes/${CLASS_NAME}?where=${where({ category: 'c7' })}&count=1&limit=0`],
    ['list as a user score >= x order score limit 20', true, () => `/1/classes/${CLASS_NAME}?where=${where({ score: { $gte: 400_000 } })}&order=score&limit=20`],
    ['list as a user score >= x order -score limit 20', true, () => `/1/classes/${CLASS_NAME}?where=${where({ score: { $gte: 400_000 } })}&order=-score&limit=20`],
    ['count as a user category = c', true, () => `/1/classes/${CLASS_NAME}?where=${where({ category: 'c7' })}&count=1&limit=0`],
    ['list as a user, no where, limit 20', true, () => `/1/classes/${CLASS_NAME}?limit=20`],
  ];
  let firstId = '';

  it.each(shapes)('%s: no sort of more rows than returned, no sequential scan', async (_name, signedIn, path) => {
    firstId ||= String((await admin.unsafe(`SELECT "objectId" FROM "${TABLE}" ORDER BY "objectId" LIMIT 1`))[0]!.objectId);
    const statements = await statementsOf(signedIn ? user.sessionToken : null, path());
    for (const statement of statements) expect({ sql: statement.sql, faults: await faultsOf(statement) }).toEqual({ sql: statement.sql, faults: [] });
  });
});

describe.skipIf(!available)('a table made before D160 and D161', () => {
  let schema: TestSchema;
  afterAll(async () => {
    await schema?.drop();
  });

  it('gets its read principals from each ACL and its indexes in the order finds emit', async () => {
    schema = await createTestSchema('svc_plans_old');
    const admin = schema.client({ max: 1 });
    const ref = { namespace: 'app', className: 'Post' };
    const table = 'app__Post';
    const before = postgresStorage({ sql: schema.client() });
    await before.ensureColumns(ref, { title: { type: 'String' }, score: { type: 'Number' }, ACL: { type: 'Object' } });
    await before.createIndex(ref, { name: 'by_title', columns: ['title'], unique: true });
    await before.createIndex(ref, { name: 'by_score', columns: ['score'], unique: false });
    const at = { __type: 'Date', iso: '2026-01-01T00:00:00.000Z' } as const;
    const acls: Array<Record<string, Value> | undefined> = [undefined, { u1: { read: true } }, { u2: { read: true }, 'role:r': { read: true } }, { '*': { read: true } }, { u1: { write: true } }];
    for (const [i, acl] of acls.entries()) {
      await before.insert(ref, { objectId: `p${i}`, createdAt: at, updatedAt: at, title: `t${i}`, score: i, ...(acl && { ACL: acl }) } as StoredRecord);
    }
    // What an older version left: no ACL$read, indexes in the default order.
    await admin.unsafe(`ALTER TABLE "${table}" DROP COLUMN "ACL$read"`);
    await admin.unsafe(`DROP INDEX "${table}$ix$by_title"; CREATE UNIQUE INDEX "${table}$ix$by_title" ON "${table}" ("title")`);
    await admin.unsafe(`DROP INDEX "${table}$ix$by_score"; CREATE INDEX "${table}$ix$by_score" ON "${table}" ("score")`);
    await admin.unsafe(`DROP INDEX "${table}$$createdAt"; CREATE INDEX "${table}$$createdAt" ON "${table}" ("createdAt", "objectId")`);

    const after = postgresStorage({ sql: schema.client() });
    const readable = async (principals: string[]) => {
      const plan = { where: { kind: 'acl_read', principals } as const, order: [{ field: { column: 'score', path: [] }, descending: false }], skip: 0, limit: 100, projection: { kind: 'all' } as const };
      return (await after.find(ref, plan)).map((r) => r.objectId);
    };
    expect(await readable(['*'])).toEqual(['p0', 'p3']);
    expect(await readable(['*', 'u1'])).toEqual(['p0', 'p1', 'p3']);
    expect(await readable(['*', 'u2'])).toEqual(['p0', 'p2', 'p3']);
    expect(await readable(['*', 'role:r', 'u9'])).toEqual(['p0', 'p2', 'p3']);
    expect(await after.count(ref, { kind: 'acl_read', principals: ['*', 'u1'] })).toBe(3);
    const definitions = (await admin.unsafe(`SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename = $1 ORDER BY indexname`, [table])).map((row) => `${row.indexname}: ${String(row.indexdef).replace(/^.* USING /, '')}`);
    expect(definitions).toEqual([
      `${table}$$aclread: gin ("ACL$read")`,
      `${table}$$createdAt: btree ("createdAt" NULLS FIRST, "objectId" COLLATE "C" NULLS FIRST)`,
      `${table}$ix$by_score: btree (score NULLS FIRST, "objectId" COLLATE "C" NULLS FIRST)`,
      `${table}$ix$by_title: btree (title COLLATE "C" NULLS FIRST)`,
      `${table}_pkey: btree ("objectId")`,
    ]);
    // A write after the upgrade keeps the column in step with the ACL.
    await after.update(ref, 'p0', [{ kind: 'set', column: 'ACL', path: [], value: { u3: { read: true } } }], at);
    expect(await readable(['*', 'u3'])).toEqual(['p0', 'p3']);
    expect(await readable(['*'])).toEqual(['p3']);
  });
});
