import { configError } from '../../core/errors.js';
import type { DateValue, StoredRecord, Value } from '../../core/values.js';
import type { AggregatePlan, ColumnSchema, FindPlan, IndexSpec, Projection, TableSchema, WhereNode } from '../../query/plan.js';
import { type SqlSchemaView, compileAggregate, compileCount, compileCountByAclBranch, compileFind, compileFindTopFirst, sqliteAdapterDialect } from '../../query/sql/index.js';
import { freezeSchema } from '../kit/freeze-schema.js';
import type { FieldOp, SchemaLimits, TableRef, UpdateImages } from '../port.js';
import type { SqliteDatabase } from './database-shape.js';
import { sqliteCodec } from './row-codec.js';
import { type CachedQuery, type PlanShape, QueryCache, branchCountShape, countShape, findShape, topFirstShape } from './query-cache.js';
import { type SqliteSchemaStore, sqliteSchemaPrograms, sqliteSchemaStore } from './sqlite-schema-store.js';
import { type SqlSchemaEngine, type SqlSchemaPrograms, sqlSchemaCore } from '../sql/sql-schema-core.js';
import { upgradeAclRead } from './acl-read-backfill.js';
import { SchemaVersion } from './schema-version.js';
import { withSqliteErrors } from './sqlite-errors.js';
import { type SqlRecordPrograms, sqlRecordCore } from '../sql/sql-record-core.js';
import { type SyncSqlDriver, runSync } from '../sql/sql-program.js';
import { sqliteSqlDriver } from './sqlite-sql-driver.js';
import { StatementCache } from './statement-cache.js';
import type { CompiledQuery } from '../../query/sql/index.js';
import type { SqliteStatement } from './database-shape.js';

/** A top-first find (D147) keeps this many times `skip + limit` records in its first step, */
const TOP_FIRST_FACTOR = 4;
/** and is only tried while that is at most this many. */
const TOP_FIRST_MAX_KEEP = 1000;
/** Finds of a shape that go straight to the one-statement form after a top-first find fell short. */
const TOP_FIRST_BACKOFF = 32;

/** A top-first find to run (`SqliteCore.topFirstQuery`), and how to tell whether its answer is complete. */
export interface TopFirstQuery {
  readonly sql: string;
  readonly statement: SqliteStatement;
  readonly parameters: readonly unknown[];
  /** Whether these rows (arrays, as `compileFindTopFirst` selects them) are the plan's answer: `limit` of them. False also starts the shape's backoff. */
  answered(rows: readonly unknown[][]): boolean;
}

/** What the core caches per existing table. */
interface TableEntry {
  /** null only in the throwaway entry of a missing table (never cached). */
  schema: TableSchema | null;
}

/**
 * The synchronous core of the SQLite adapter: the shared record and schema programs
 * (src/storage/sql) run on better-sqlite3 with the statements and schemas this core chooses. Each
 * method is one statement or one IMMEDIATE transaction, so it is atomic. Schemas of existing tables are cached in memory (a missing table
 * is looked up each time, so unknown names never pile up); the cache is dropped whenever a
 * transaction rolls back (`invalidate`) and whenever another connection changed the schema
 * (`SchemaVersion`). Schema writes re-read the schema inside their transaction.
 */
export class SqliteCore {
  readonly statements: StatementCache;
  private readonly store: SqliteSchemaStore;
  /** Compiled find/count SQL per plan shape and schema (src/storage/sqlite/query-cache.ts). */
  private readonly queries = new QueryCache();
  /** Finds left before a top-first shape is tried again, per cached shape (`topFirstQuery`). */
  private readonly topFirstWaits = new WeakMap<object, number>();
  /** Runs the record core's programs on this connection, at once. */
  private readonly driver: SyncSqlDriver;
  /** The record operations (src/storage/sql/sql-record-core.ts). */
  private readonly records: SqlRecordPrograms;
  /** The schema operations (src/storage/sql/sql-schema-core.ts) over this core's hooks. */
  private readonly schemaOps: SqlSchemaPrograms;
  /** namespace -> className -> entry. */
  private readonly entries = new Map<string, Map<string, TableEntry>>();
  private readonly version: SchemaVersion;

  constructor(readonly db: SqliteDatabase) {
    this.statements = new StatementCache(db);
    this.store = sqliteSchemaStore(db, this.statements);
    this.store.createBookkeeping();
    upgradeAclRead(db, (ref) => this.store.load(ref));
    this.version = new SchemaVersion(db);
    this.driver = sqliteSqlDriver(db, this.statements);
    // Statements run as compiled (no keying): a schema change moves the cookie, which drops every cached statement.
    this.records = sqlRecordCore({ dialect: sqliteAdapterDialect, codec: sqliteCodec, keyed: (query) => query });
    this.schemaOps = sqlSchemaCore(this.schemaEngine());
  }

  /**
   * SQLite's hooks of the schema operations: every change in one IMMEDIATE transaction
   * (`schemaWrite`: the schema-version cookie settled around it), the DDL inside the claim's
   * transaction, cached schemas kept until a drop, which forgets every cached statement.
   */
  private schemaEngine(): SqlSchemaEngine {
    // The hooks are generator functions, which cannot be arrows.
    const core = this;
    return {
      dialect: sqliteAdapterDialect,
      store: sqliteSchemaPrograms,
      *schemaForRead(ref) {
        return core.getSchema(ref);
      },
      *ready() {},
      *schemaWrite(_kind, work) {
        return core.schemaWrite(() => runSync(work(), core.driver));
      },
      // The claim and its DDL in one transaction: nobody else recorded a type, and columns keep the order asked for.
      *duringClaim(ref, { current, intended, added }) {
        if (!current || added.length > 0) yield* sqliteSchemaPrograms.materialize(ref, intended, current ? added : undefined);
      },
      *afterClaim() {},
      remember: (ref, schema) => core.remember(ref, schema),
      forget: () => undefined,
      afterDrop: (_ref, dropped) => {
        // Cached SQL may name what is gone; SchemaVersion tells other connections (DDL bumps schema_version).
        if (dropped) core.invalidate();
      },
      afterNamespaceDrop: () => core.invalidate(),
    };
  }

  getSchema(ref: TableRef): TableSchema | null {
    return this.entry(ref).schema;
  }

  ensureColumns(ref: TableRef, wanted: Readonly<Record<string, ColumnSchema>>, limits?: SchemaLimits): TableSchema {
    return runSync(this.schemaOps.ensureColumns(ref, wanted, limits), this.driver);
  }

  createIndex(ref: TableRef, index: IndexSpec): void {
    withSqliteErrors(() => runSync(this.schemaOps.createIndex(ref, index), this.driver));
  }

  insert(ref: TableRef, record: StoredRecord): void {
    const schema = this.getSchema(ref);
    if (!schema) throw configError('sqlite', `table ${ref.className} does not exist: call ensureColumns first`);
    withSqliteErrors(() => runSync(this.records.insert(ref, schema, record), this.driver));
  }

  get(ref: TableRef, objectId: string, projection?: Projection): StoredRecord | null {
    const schema = this.getSchema(ref);
    return schema ? runSync(this.records.get(ref, schema, objectId, projection), this.driver) : null;
  }

  update(ref: TableRef, objectId: string, ops: readonly FieldOp[], updatedAt: DateValue): StoredRecord | null {
    const schema = this.getSchema(ref);
    return schema ? withSqliteErrors(() => runSync(this.records.update(ref, schema, objectId, ops, updatedAt), this.driver)) : null;
  }

  updateWithoutReturning(ref: TableRef, objectId: string, ops: readonly FieldOp[], updatedAt: DateValue): boolean {
    const schema = this.getSchema(ref);
    return schema ? withSqliteErrors(() => runSync(this.records.updateWithoutReturning(ref, schema, objectId, ops, updatedAt), this.driver)) : false;
  }

  /** The update and the read of the row before it, in one IMMEDIATE transaction (a savepoint when nested). */
  updateReturningBefore(ref: TableRef, objectId: string, ops: readonly FieldOp[], updatedAt: DateValue): UpdateImages | null {
    const schema = this.getSchema(ref);
    return schema ? withSqliteErrors(() => runSync(this.records.updateReturningBefore(ref, schema, objectId, ops, updatedAt), this.driver)) : null;
  }

  delete(ref: TableRef, objectId: string): boolean {
    const schema = this.getSchema(ref);
    return schema ? runSync(this.records.delete(ref, schema, objectId), this.driver) : false;
  }

  /** A find: its top-first form first where that was chosen for its shape, else the one statement of the shape cache. */
  find(ref: TableRef, plan: FindPlan): StoredRecord[] {
    const schema = this.getSchema(ref);
    if (!schema) return [];
    const top = this.topFirstQuery(ref, schema, plan);
    const first = top ? { query: { sql: top.sql, parameters: top.parameters }, answered: top.answered } : null;
    const query = (): CompiledQuery => {
      const [, parameters, sql] = this.prepared(schema, findShape(schema, plan), () => compileFind(ref.className, plan, this.view(ref.namespace), sqliteAdapterDialect));
      return { sql, parameters };
    };
    return runSync(this.records.find(schema, plan, query, first), this.driver);
  }

  /**
   * The top-first form of an ACL-filtered find (compileFindTopFirst, D147), or null to run the
   * one-statement form. Used only where SQLite's plan for the one statement scans the whole table
   * and sorts it (so it tests the ACL of every row that matches the rest of the where, while the
   * first step tests none), decided once per shape from EXPLAIN QUERY PLAN; and not for a while
   * after the shape's top-first find fell short (then both statements ran).
   */
  topFirstQuery(ref: TableRef, schema: TableSchema, plan: FindPlan): TopFirstQuery | null {
    const keep = TOP_FIRST_FACTOR * (plan.skip + plan.limit);
    if (plan.limit <= 0 || keep > TOP_FIRST_MAX_KEEP) return null;
    const shape = topFirstShape(schema, plan, keep);
    if (!shape) return null;
    let cached = this.queries.get(schema, shape.key);
    if (cached === undefined) {
      const compiled = this.scansAndSorts(ref, plan) ? compileFindTopFirst(ref.className, plan, keep, this.view(ref.namespace), sqliteAdapterDialect) : null;
      const statement = compiled ? this.statements.get(compiled.sql) : null;
      if (!compiled || !statement?.raw) {
        this.queries.refuse(schema, shape.key);
        return null;
      }
      this.queries.remember(schema, shape, compiled, statement);
      cached = this.queries.get(schema, shape.key);
    }
    if (!cached) return null;
    const waits = this.topFirstWaits.get(cached) ?? 0;
    if (waits > 0) {
      this.topFirstWaits.set(cached, waits - 1);
      return null;
    }
    const entry: NonNullable<CachedQuery> = cached;
    return {
      sql: entry.sql,
      statement: entry.statement,
      parameters: shape.parameters,
      answered: (rows) => {
        if (rows.length >= plan.limit) return true;
        this.topFirstWaits.set(entry, TOP_FIRST_BACKOFF);
        return false;
      },
    };
  }

  /** Whether SQLite runs a find as a scan of the whole table sorted afterwards (EXPLAIN QUERY PLAN). */
  private scansAndSorts(ref: TableRef, plan: FindPlan): boolean {
    const query = compileFind(ref.className, plan, this.view(ref.namespace), sqliteAdapterDialect);
    const steps = (this.statements.get(`EXPLAIN QUERY PLAN ${query.sql}`).all(...query.parameters) as Array<{ detail: string }>).map((step) => step.detail);
    return steps.some((detail) => /^SCAN t0\b/.test(detail)) && steps.includes('USE TEMP B-TREE FOR ORDER BY');
  }

  count(ref: TableRef, where: WhereNode): number {
    const schema = this.getSchema(ref);
    if (!schema) return 0;
    const { sql, parameters } = this.countQuery(ref, schema, where);
    return runSync(this.records.count({ sql, parameters }), this.driver);
  }

  /**
   * The SQL of a count: one count per branch of the ACL read filter where SQLite answers each branch
   * from an index range that includes `ACL$read` (D147: no entry tested one by one), else one count.
   * The choice is made once per shape, from EXPLAIN QUERY PLAN, and kept in the shape cache.
   */
  countQuery(ref: TableRef, schema: TableSchema, where: WhereNode): { readonly sql: string; readonly statement: SqliteStatement; readonly parameters: readonly unknown[] } {
    const branch = branchCountShape(schema, where);
    if (branch) {
      const cached = this.queries.get(schema, branch.key);
      if (cached) return { sql: cached.sql, statement: cached.statement, parameters: branch.parameters };
      if (cached === undefined) {
        const compiled = compileCountByAclBranch(ref.className, where, this.view(ref.namespace), sqliteAdapterDialect);
        if (compiled && this.branchesSeekIndexes(compiled)) {
          const statement = this.statements.get(compiled.sql);
          this.queries.remember(schema, branch, compiled, statement);
          return { sql: compiled.sql, statement, parameters: compiled.parameters };
        }
        this.queries.refuse(schema, branch.key);
      }
    }
    const shape = countShape(schema, where);
    const [statement, parameters, sql] = this.prepared(schema, shape, () => compileCount(ref.className, where, this.view(ref.namespace), sqliteAdapterDialect));
    return { sql, statement, parameters };
  }

  /** Whether every branch of a branch count reads a range of an index by `ACL$read` (never a scan, never a test per entry). */
  private branchesSeekIndexes(query: CompiledQuery): boolean {
    const plan = this.statements.get(`EXPLAIN QUERY PLAN ${query.sql}`).all(...query.parameters) as Array<{ detail: string }>;
    const main = plan.map((step) => step.detail).filter((detail) => /^(SEARCH|SCAN) t0\b/.test(detail));
    return main.length >= 3 && main.every((detail) => /^SEARCH t0 USING (COVERING )?INDEX \S+ \(.*\bACL\$read[<>=]/.test(detail));
  }

  /** The statement, parameters and SQL of a find/count: from the shape cache, or compiled (and cached). */
  private prepared(schema: TableSchema, shape: PlanShape | null, compile: () => CompiledQuery): [SqliteStatement, readonly unknown[], string] {
    if (shape) {
      const cached = this.queries.get(schema, shape.key);
      if (cached) return [cached.statement, shape.parameters, cached.sql];
      if (cached === undefined) {
        const compiled = compile();
        const statement = this.statements.get(compiled.sql);
        this.queries.remember(schema, shape, compiled, statement);
        return [statement, compiled.parameters, compiled.sql];
      }
    }
    const compiled = compile();
    return [this.statements.get(compiled.sql), compiled.parameters, compiled.sql];
  }

  aggregate(ref: TableRef, plan: AggregatePlan): Array<Record<string, Value>> {
    if (!this.getSchema(ref)) return [];
    return runSync(this.records.aggregate(compileAggregate(ref.className, plan, this.view(ref.namespace), sqliteAdapterDialect)), this.driver);
  }

  listTables(namespace: string): string[] {
    return runSync(this.schemaOps.listTables(namespace), this.driver);
  }

  dropColumn(ref: TableRef, column: string): boolean {
    return withSqliteErrors(() => runSync(this.schemaOps.dropColumn(ref, column), this.driver));
  }

  dropIndex(ref: TableRef, name: string): boolean {
    return withSqliteErrors(() => runSync(this.schemaOps.dropIndex(ref, name), this.driver));
  }

  dropTable(ref: TableRef): boolean {
    return withSqliteErrors(() => runSync(this.schemaOps.dropTable(ref), this.driver));
  }

  dropNamespace(namespace: string): void {
    runSync(this.schemaOps.dropNamespace(namespace), this.driver);
  }

  /** Forgets cached schemas and statements (after a rollback or a dropped table). */
  invalidate(): void {
    this.forgetSchemas();
    this.version.forget();
    this.statements.clear();
  }

  private forgetSchemas(): void {
    this.entries.clear();
    this.queries.clear();
  }

  /**
   * Runs a schema change in one IMMEDIATE transaction: cached schemas are dropped first when another
   * connection changed the schema, and the cookie this change moves is settled before commit (so
   * the process's own DDL does not count as a foreign change).
   */
  private schemaWrite<T>(work: () => T): T {
    return this.db
      .transaction(() => {
        if (this.version.update()) this.forgetSchemas();
        const result = work();
        this.version.update();
        return result;
      })
      .immediate();
  }

  private remember(ref: TableRef, schema: TableSchema): TableSchema {
    const frozen = freezeSchema(schema);
    const entry = this.entry(ref);
    entry.schema = frozen;
    this.tablesOf(ref.namespace).set(ref.className, entry);
    return frozen;
  }

  private view(namespace: string): SqlSchemaView {
    return { namespace, schema: (className) => this.getSchema({ namespace, className }) };
  }

  private tablesOf(namespace: string): Map<string, TableEntry> {
    let tables = this.entries.get(namespace);
    if (!tables) this.entries.set(namespace, (tables = new Map()));
    return tables;
  }

  private entry(ref: TableRef): TableEntry {
    if (this.version.changed()) this.forgetSchemas();
    const cached = this.entries.get(ref.namespace)?.get(ref.className);
    if (cached) return cached;
    const loaded = this.store.load(ref);
    const entry: TableEntry = { schema: loaded ? freezeSchema(loaded) : null };
    // Only existing tables are cached: every unknown name a client asks for would otherwise stay (D9).
    if (loaded) this.tablesOf(ref.namespace).set(ref.className, entry);
    return entry;
  }

  /** How many tables have a cached schema (tests: the cache stays bounded). */
  cachedTableCount(): number {
    let n = 0;
    for (const tables of this.entries.values()) n += tables.size;
    return n;
  }
}
