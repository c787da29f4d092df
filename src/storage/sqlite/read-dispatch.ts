import { svcError } from '../../core/errors.js';
import type { StoredRecord, Value } from '../../core/values.js';
import type { AggregatePlan, FindPlan, TableSchema, WhereNode } from '../../query/plan.js';
import { type SqlSchemaView, compileAggregate, compileCountUpTo, compileFind, compileMatchBeyond, sqliteAdapterDialect } from '../../query/sql/index.js';
import { physicalTableName } from '../../query/sql/layout.js';
import { projectRecord } from '../kit/projection.js';
import type { Awaitable, ReadOptions, TableRef } from '../port.js';
import type { SqliteDatabase } from './database-shape.js';
import { GuardedReader, type ReadRequest, type ReadResult } from './guarded-reader.js';
import { quoteIdent } from './identifiers.js';
import { UNITS_PER_STALL_MS, aggregateRowCap, drivingIndexedColumn, findRowCap, inlineAggregate, inlineCount, inlineFind } from './read-cost.js';
import { isDeadlineError } from './read-guard.js';
import type { ReaderPool } from './reader-pool.js';
import { arrayLayout, decodeRow, decodeValues } from './row-codec.js';
import type { SqliteCore } from './sqlite-core.js';

type Row = Record<string, unknown>;

const ROW_BOUND_TTL_MS = 100;

/**
 * Most index entries the match probe counts (a few tens of microseconds): a read of a large table
 * driven by an index and matching at most this many records runs inline, as on a small table.
 */
const PROBE_CAP = 4096;

/** Budgets of the reads: the caller's default and the longest the caller's thread may be held. */
export interface ReadLimits {
  readonly budgetMs: number;
  readonly stallMs: number;
}

/**
 * Where each read of the SQLite adapter runs (decision D20). A read whose cost is provably small
 * (read-cost.ts) runs inline on the adapter's connection, exactly as before. Any other read runs on
 * a reader worker under its budget when a pool exists and the caller holds no transaction; otherwise
 * (a transaction, `:memory:`, no workers) it runs inline with a deadline of min(budget, stall bound).
 */
export class SqliteReads {
  private readonly guarded: GuardedReader;
  /** Cost units a read may take inline (read-cost.ts). */
  private readonly inlineUnits: number;
  /** Row-count bounds per quoted physical table. */
  private readonly bounds = new Map<string, { rows: number; at: number }>();
  /** Whether a compiled read's plan searches an index (EXPLAIN QUERY PLAN, once per SQL text). */
  private readonly searches = new Map<string, boolean>();

  constructor(
    private readonly core: SqliteCore,
    db: SqliteDatabase,
    private readonly pool: ReaderPool | null,
    private readonly limits: ReadLimits,
  ) {
    this.guarded = new GuardedReader(db);
    this.inlineUnits = limits.stallMs * UNITS_PER_STALL_MS;
  }

  find(ref: TableRef, plan: FindPlan, options: ReadOptions | undefined, inTransaction: boolean): Awaitable<StoredRecord[]> {
    const schema = this.core.getSchema(ref);
    if (!schema || inlineFind(schema, plan, this.rowBound(ref), this.inlineUnits)) return this.core.find(ref, plan);
    const query = compileFind(ref.className, plan, this.view(ref.namespace), sqliteAdapterDialect);
    if (this.fewIndexedMatches(ref, schema, plan.where, query.sql, query.parameters, inTransaction, findRowCap(schema, plan, this.inlineUnits))) return this.core.find(ref, plan);
    const decode = (result: ReadResult): StoredRecord[] => {
      const rows = result as unknown[];
      const layout = arrayLayout(schema);
      return rows.map((row) => projectRecord(Array.isArray(row) ? decodeValues(schema, row, layout) : decodeRow(schema, row as Row), plan.projection));
    };
    const exact = () => this.run({ kind: 'arrays', ...query }, options, inTransaction, decode);
    // An ACL-filtered find that sorts a whole table: its top-first form, then the exact one if it fell short (D147).
    const top = this.core.topFirstQuery(ref, schema, plan);
    if (!top) return exact();
    const finish = (rows: unknown[]): Awaitable<StoredRecord[]> => (rows.every(Array.isArray) && top.answered(rows as unknown[][]) ? decode(rows) : exact());
    const first = this.run({ kind: 'arrays', sql: top.sql, parameters: top.parameters }, options, inTransaction, (result) => result as unknown[]);
    return first instanceof Promise ? first.then(finish) : finish(first);
  }

  count(ref: TableRef, where: WhereNode, options: ReadOptions | undefined, inTransaction: boolean): Awaitable<number> {
    const schema = this.core.getSchema(ref);
    if (!schema || inlineCount(schema, where, this.rowBound(ref), this.inlineUnits)) return this.core.count(ref, where);
    const { sql, parameters } = this.core.countQuery(ref, schema, where);
    // The probe counts the same where's matches up to its cap: under the cap, that is the answer.
    const matches = this.indexedMatchCount(ref, schema, where, sql, parameters, inTransaction);
    if (matches !== null) return matches;
    return this.run({ kind: 'count', sql, parameters }, options, inTransaction, (result) => result as number);
  }

  aggregate(ref: TableRef, plan: AggregatePlan, options: ReadOptions | undefined, inTransaction: boolean): Awaitable<Array<Record<string, Value>>> {
    const schema = this.core.getSchema(ref);
    if (!schema || inlineAggregate(schema, plan, this.rowBound(ref), this.inlineUnits)) return this.core.aggregate(ref, plan);
    const { query, decode } = compileAggregate(ref.className, plan, this.view(ref.namespace), sqliteAdapterDialect);
    if (this.fewIndexedMatches(ref, schema, plan.where, query.sql, query.parameters, inTransaction, aggregateRowCap(schema, plan, this.inlineUnits))) return this.core.aggregate(ref, plan);
    return this.run({ kind: 'rows', ...query }, options, inTransaction, (result) => (result as Row[]).map((row) => decode(row)));
  }

  private run<T>(request: ReadRequest, options: ReadOptions | undefined, inTransaction: boolean, decode: (result: ReadResult) => T): Awaitable<T> {
    const budgetMs = Math.max(0, options?.budgetMs ?? this.limits.budgetMs);
    if (this.pool && !inTransaction) return this.pool.read(request, budgetMs).then(decode);
    const bound = Math.min(budgetMs, this.limits.stallMs);
    try {
      return decode(this.guarded.run(request, bound));
    } catch (error) {
      throw isDeadlineError(error) ? svcError('queryOverBudget', bound) : error;
    }
  }

  /**
   * Whether a read of a table too large for the row bound visits at most `cap` records (the most it
   * may visit inline, read-cost.ts), knowably and cheaply: its where narrows one indexed column only,
   * SQLite's plan for the read searches an index, and no record matches past the first
   * min(cap, PROBE_CAP) (one index seek and a walk of at most that many entries). False otherwise
   * (the read goes to a worker as before). Only outside transactions with a worker pool: elsewhere
   * every read runs on this connection under its deadline anyway.
   */
  private fewIndexedMatches(ref: TableRef, schema: TableSchema, where: WhereNode, sql: string, parameters: readonly unknown[], inTransaction: boolean, cap: number): boolean {
    if (cap < 1 || !this.indexDriven(schema, where, sql, parameters, inTransaction)) return false;
    const probe = compileMatchBeyond(ref.className, where, this.view(ref.namespace), sqliteAdapterDialect, Math.min(cap, PROBE_CAP));
    return this.core.statements.get(probe.sql).get(...probe.parameters) === undefined;
  }

  /** For a count driven by an index as above: its answer when at most PROBE_CAP records match, else null. */
  private indexedMatchCount(ref: TableRef, schema: TableSchema, where: WhereNode, sql: string, parameters: readonly unknown[], inTransaction: boolean): number | null {
    if (!this.indexDriven(schema, where, sql, parameters, inTransaction)) return null;
    const probe = compileCountUpTo(ref.className, where, this.view(ref.namespace), sqliteAdapterDialect, PROBE_CAP + 1);
    const row = this.core.statements.get(probe.sql).get(...probe.parameters) as { n: number | bigint } | undefined;
    const matches = Number(row?.n ?? 0);
    return matches <= PROBE_CAP ? matches : null;
  }

  private indexDriven(schema: TableSchema, where: WhereNode, sql: string, parameters: readonly unknown[], inTransaction: boolean): boolean {
    return this.pool !== null && !inTransaction && drivingIndexedColumn(where, schema) !== null && this.searchesIndex(sql, parameters);
  }

  /** Whether SQLite's plan for `sql` reaches the main table through an index (never a full scan of it). */
  private searchesIndex(sql: string, parameters: readonly unknown[]): boolean {
    let known = this.searches.get(sql);
    if (known === undefined) {
      const plan = this.core.statements.get(`EXPLAIN QUERY PLAN ${sql}`).all(...parameters) as Array<{ detail: string }>;
      known = plan.some((step) => /^SEARCH t0 USING (COVERING )?INDEX /.test(step.detail)) && !plan.some((step) => /^SCAN t0\b/.test(step.detail));
      if (this.searches.size >= 1024) this.searches.clear();
      this.searches.set(sql, known);
    }
    return known;
  }

  /**
   * An upper bound of the table's row count: its largest rowid (one index seek), looked up again
   * once it is 100 ms old (between two looks a table grows by at most that long of inserts).
   */
  private rowBound(ref: TableRef): number {
    const table = quoteIdent(physicalTableName(ref.namespace, ref.className));
    const now = performance.now();
    const known = this.bounds.get(table);
    if (known && now - known.at < ROW_BOUND_TTL_MS) return known.rows;
    let rows: number;
    try {
      const row = this.core.statements.get(`SELECT max(rowid) AS n FROM ${table}`).get() as { n: number | bigint | null } | undefined;
      rows = Number(row?.n ?? 0);
    } catch {
      rows = Number.POSITIVE_INFINITY;
    }
    if (this.bounds.size >= 1024) this.bounds.clear();
    this.bounds.set(table, { rows, at: now });
    return rows;
  }

  private view(namespace: string): SqlSchemaView {
    return { namespace, schema: (className) => this.core.getSchema({ namespace, className }) };
  }
}
