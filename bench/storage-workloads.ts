/**
 * The storage workloads of groups 1 (storage vs raw better-sqlite3) and 6 (growth): each one as
 * "ours" (the StorageAdapter called with plans made by the query parser, exactly as the REST layer
 * makes them) and "raw" (a hand-written prepared statement on the very table the adapter created,
 * with the same semantics: same rows, same order, the updated row returned).
 *
 * Parameters vary per call (ids, categories, score ranges) from pools built outside the timed loop.
 */
import type Database from 'better-sqlite3';
import { DEFAULT_SETTINGS } from '../src/app/application.js';
import type { StoredRecord } from '../src/core/values.js';
import { type ListQuery, parseListQuery } from '../src/query/parse.js';
import type { AggregatePlan, FindPlan, TableSchema, WhereNode } from '../src/query/plan.js';
import { compileAggregate, compileCount, compileFind, sqliteDialect } from '../src/query/sql/index.js';
import { physicalTableName } from '../src/query/sql/layout.js';
import type { StorageAdapter, TableRef } from '../src/storage/port.js';
import { categoryCount, objectIdOf, scoreRange } from './data.js';
import { type Op, prng } from './harness.js';
import { writeWorkloads } from './storage-writes.js';

export interface StorageWorkload {
  readonly name: string;
  readonly kind: 'read' | 'write';
  readonly ours: Op;
  readonly raw: Op;
  /** The statements both sides run for one call (results.json shows them with SQLite's plans). */
  readonly explain?: () => { ours: Statement; raw: Statement };
  /** Runs both sides once with the same parameters; a mismatch description, or null when they agree. */
  readonly check?: () => Promise<string | null>;
}

export interface Statement {
  readonly sql: string;
  readonly parameters: readonly unknown[];
}

const POOL = 256;

function parsePool<T>(count: number, query: (i: number) => string, pick: (q: ListQuery) => T, schema: TableSchema, className: string): T[] {
  const ctx = { className, schema: () => schema, settings: DEFAULT_SETTINGS };
  return Array.from({ length: count }, (_, i) => pick(parseListQuery(new URLSearchParams(query(i)), ctx)));
}

const findOf = (q: ListQuery): FindPlan => {
  if (q.kind !== 'find') throw new Error(`[bench] expected a find plan, got ${q.kind}`);
  return q.plan;
};
const countOf = (q: ListQuery): WhereNode => {
  if (q.kind !== 'count') throw new Error(`[bench] expected a count query, got ${q.kind}`);
  return q.where;
};
const aggregateOf = (q: ListQuery): AggregatePlan => {
  if (q.kind !== 'aggregate') throw new Error(`[bench] expected a statistics query, got ${q.kind}`);
  return q.plan;
};

function rangeWhere(size: number, position: number): string {
  const [from, to] = scoreRange(size, position);
  return encodeURIComponent(JSON.stringify({ score: { $gte: from, $lt: to } }));
}

function sameIds(ours: readonly StoredRecord[], raw: readonly unknown[]): string | null {
  const a = ours.map((r) => r.objectId).join(',');
  const b = (raw as Array<{ objectId: string }>).map((r) => r.objectId).join(',');
  return a === b ? null : `ids differ (${ours.length} vs ${raw.length} rows)`;
}

function queryPlan(db: Database.Database, sql: string, params: readonly unknown[]): string {
  const rows = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as Array<{ detail: string }>;
  return rows.map((r) => r.detail).join('; ');
}

/**
 * Builds the read workloads over `ref` (a seeded Bench table of `size` records) and, when
 * `writeRef` is given (an empty table with the same columns), the write workloads.
 */
export function storageWorkloads(options: {
  storage: StorageAdapter;
  db: Database.Database;
  ref: TableRef;
  schema: TableSchema;
  size: number;
  writeRef?: TableRef;
}): StorageWorkload[] {
  const { storage, db, ref, schema, size } = options;
  const table = `"${physicalTableName(ref.namespace, ref.className)}"`;
  const random = prng(11);
  const ids = Array.from({ length: 4096 }, () => objectIdOf(Math.floor(random() * size)));
  const categories = categoryCount(size);
  const positions = Array.from({ length: POOL }, () => random());
  const catOf = (i: number) => `c${Math.floor((i * 7919) % categories)}`;

  const eqPlans = parsePool(POOL, (i) => `where=${encodeURIComponent(JSON.stringify({ category: catOf(i) }))}&limit=100`, findOf, schema, ref.className);
  const rangePlans = parsePool(POOL, (i) => `where=${rangeWhere(size, positions[i]!)}&order=-score&limit=100`, findOf, schema, ref.className);
  const countWheres = parsePool(POOL, (i) => `where=${rangeWhere(size, positions[i]!)}&count=1&limit=0`, countOf, schema, ref.className);
  const groupPlans = parsePool(POOL, (i) => `where=${rangeWhere(size, positions[i]!)}&groupby=level&sum=score`, aggregateOf, schema, ref.className);
  const ranges = positions.map((p) => scoreRange(size, p));

  const rawGet = db.prepare(`SELECT * FROM ${table} WHERE objectId = ?`);
  const rawEq = db.prepare(`SELECT * FROM ${table} WHERE category = ? ORDER BY createdAt, objectId LIMIT 100`);
  const rawRange = db.prepare(`SELECT * FROM ${table} WHERE score >= ? AND score < ? ORDER BY score DESC, objectId LIMIT 100`);
  const rawCount = db.prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE score >= ? AND score < ?`);
  const rawGroup = db.prepare(`SELECT level, SUM(score) AS _sumScore FROM ${table} WHERE score >= ? AND score < ? GROUP BY level ORDER BY level`);

  const view = { namespace: ref.namespace, schema: (name: string) => (name === ref.className ? schema : null) };
  const range0 = ranges[0]!;
  let g = 0;
  let e = 0;
  let r = 0;
  let c = 0;
  let a = 0;
  const workloads: StorageWorkload[] = [
    {
      name: 'get by objectId',
      kind: 'read',
      ours: () => storage.get(ref, ids[g++ & 4095]!),
      raw: () => rawGet.get(ids[g++ & 4095]!),
      check: async () => {
        const ours = (await storage.get(ref, ids[0]!)) as StoredRecord | null;
        const raw = rawGet.get(ids[0]!) as { objectId: string; score: number } | undefined;
        return ours?.objectId === raw?.objectId && ours?.score === raw?.score ? null : `get ${ids[0]}: ${ours?.objectId} vs ${raw?.objectId}`;
      },
      explain: () => ({ ours: { sql: `SELECT * FROM ${table} WHERE "objectId" = ?`, parameters: [ids[0]] }, raw: { sql: rawGet.source, parameters: [ids[0]] } }),
    },
    {
      name: 'equality on indexed column, limit 100',
      kind: 'read',
      ours: () => storage.find(ref, eqPlans[e++ & (POOL - 1)]!),
      raw: () => rawEq.all(catOf(e++ & (POOL - 1))),
      check: async () => sameIds(await storage.find(ref, eqPlans[0]!), rawEq.all(catOf(0))),
      explain: () => ({ ours: compileFind(ref.className, eqPlans[0]!, view, sqliteDialect), raw: { sql: rawEq.source, parameters: [catOf(0)] } }),
    },
    {
      name: 'range + order + limit 100',
      kind: 'read',
      ours: () => storage.find(ref, rangePlans[r++ & (POOL - 1)]!),
      raw: () => {
        const [from, to] = ranges[r++ & (POOL - 1)]!;
        return rawRange.all(from, to);
      },
      check: async () => sameIds(await storage.find(ref, rangePlans[0]!), rawRange.all(...range0)),
      explain: () => ({ ours: compileFind(ref.className, rangePlans[0]!, view, sqliteDialect), raw: { sql: rawRange.source, parameters: range0 } }),
    },
    {
      name: 'count with a where (~1000 matches)',
      kind: 'read',
      ours: () => storage.count(ref, countWheres[c++ & (POOL - 1)]!),
      raw: () => {
        const [from, to] = ranges[c++ & (POOL - 1)]!;
        return (rawCount.get(from, to) as { n: number }).n;
      },
      check: async () => {
        const ours = await storage.count(ref, countWheres[0]!);
        const raw = (rawCount.get(...range0) as { n: number }).n;
        return ours === raw ? null : `count ${ours} vs ${raw}`;
      },
      explain: () => ({ ours: compileCount(ref.className, countWheres[0]!, view, sqliteDialect), raw: { sql: rawCount.source, parameters: range0 } }),
    },
    {
      name: 'groupby + sum (~1000 matches)',
      kind: 'read',
      ours: () => storage.aggregate(ref, groupPlans[a++ & (POOL - 1)]!),
      raw: () => {
        const [from, to] = ranges[a++ & (POOL - 1)]!;
        return rawGroup.all(from, to);
      },
      check: async () => {
        const ours = (await storage.aggregate(ref, groupPlans[0]!)).map((row) => `${String(row.level)}:${String(row._sumScore)}`).join(',');
        const raw = (rawGroup.all(...range0) as Array<{ level: number; _sumScore: number }>).map((row) => `${row.level}:${row._sumScore}`).join(',');
        return ours === raw ? null : `groupby ${ours} vs ${raw}`;
      },
      explain: () => ({ ours: compileAggregate(ref.className, groupPlans[0]!, view, sqliteDialect).query, raw: { sql: rawGroup.source, parameters: range0 } }),
    },
  ];
  if (options.writeRef) workloads.push(...writeWorkloads({ storage, db, ref, writeRef: options.writeRef, ids }));
  return workloads;
}

/** Both statements of a workload with SQLite's query plan for each (results.json). */
export function describeSql(db: Database.Database, workload: StorageWorkload): Record<string, string> | undefined {
  if (!workload.explain) return undefined;
  const { ours, raw } = workload.explain();
  return { oursSql: ours.sql, rawSql: raw.sql, oursPlan: queryPlan(db, ours.sql, ours.parameters), rawPlan: queryPlan(db, raw.sql, raw.parameters) };
}
