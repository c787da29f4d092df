import type { Clock } from '../../core/clock.js';
import { configError } from '../../core/errors.js';
import { LruMap } from '../../core/lru.js';
import type { DateValue, StoredRecord, Value } from '../../core/values.js';
import type { AggregatePlan, ColumnSchema, FindPlan, IndexSpec, Projection, TableSchema, WhereNode } from '../../query/plan.js';
import { type SqlSchemaView, compileAggregate, compileCount, compileFind, postgresDialect } from '../../query/sql/index.js';
import { freezeSchema } from '../kit/freeze-schema.js';
import type { FieldOp, ReadOptions, SchemaLimits, TableRef, UpdateImages } from '../port.js';
import type { PgQueryable } from './pg-client.js';
import { sqlState, withPgErrors } from './pg-errors.js';
import { pgCodec } from './pg-codec.js';
import { type PgSchemaStore, pgSchemaPrograms, pgSchemaStore } from './pg-schema-store.js';
import { type SqlSchemaEngine, type SqlSchemaPrograms, sqlSchemaCore } from '../sql/sql-schema-core.js';
import { type Atomically, pgSqlDriver } from './pg-sql-driver.js';
import { type AsyncSqlDriver, awaiting, runAsync } from '../sql/sql-program.js';
import { type SqlRecordPrograms, sqlRecordCore } from '../sql/sql-record-core.js';
import { keyedToSchemas } from './statement-key.js';
import { referencedTables } from '../kit/plan-tables.js';
import { type PlanShape, QueryCache, countShape, findShape } from '../sql/plan-shapes.js';
import type { CompiledQuery } from '../../query/sql/fragment.js';
import { PG_SHAPES } from './pg-shapes.js';

const D = postgresDialect;

/** A cached schema and when it was loaded (clock ms). */
interface CachedSchema {
  readonly schema: TableSchema;
  readonly loadedAt: number;
}

/**
 * Schemas of existing tables, shared by an adapter and its transaction views. Entries older than
 * `ttlMs` are reloaded, so columns and indexes another instance added show up here within that
 * time (a write naming a column this instance does not know reloads at once). Only tables that exist
 * are kept, at most 10,000 of them (least recently used evicted first): names come from clients.
 */
export class PgSchemaCache {
  private readonly entries = new LruMap<string, CachedSchema>(10_000);
  /** Columns (per table) this instance has seen exist physically: its own DDL ran, or it checked. */
  private readonly materialized = new LruMap<string, Set<string>>(10_000);
  constructor(
    private readonly clock: Clock,
    private readonly ttlMs: number,
  ) {}

  get(ref: TableRef): TableSchema | null {
    const key = `${ref.namespace}\u0000${ref.className}`;
    const hit = this.entries.get(key);
    if (!hit) return null;
    if (this.clock.now() - hit.loadedAt > this.ttlMs) {
      this.entries.delete(key);
      return null;
    }
    return hit.schema;
  }

  set(ref: TableRef, schema: TableSchema): TableSchema {
    const frozen = freezeSchema(schema);
    this.entries.set(`${ref.namespace}\u0000${ref.className}`, { schema: frozen, loadedAt: this.clock.now() });
    return frozen;
  }

  /** The recorded columns of `schema` this instance has not yet seen materialized (the table itself as `''`). */
  unverified(ref: TableRef, schema: TableSchema): Array<readonly [string, ColumnSchema]> {
    const seen = this.materialized.get(`${ref.namespace}\u0000${ref.className}`);
    const missing: Array<readonly [string, ColumnSchema]> = Object.entries(schema.columns).filter(([name]) => !seen?.has(name));
    return seen?.has('') ? missing : [['', { type: 'String' }], ...missing];
  }

  /** Records that the table and `columns` (default: every column of `schema`) exist physically. */
  markMaterialized(ref: TableRef, schema: TableSchema, columns: readonly string[] = Object.keys(schema.columns)): void {
    const key = `${ref.namespace}\u0000${ref.className}`;
    let seen = this.materialized.get(key);
    if (!seen) this.materialized.set(key, (seen = new Set()));
    seen.add('');
    for (const name of columns) seen.add(name);
  }

  forget(ref: TableRef): void {
    this.entries.delete(`${ref.namespace}\u0000${ref.className}`);
  }

  /** How many table schemas are cached (tests: the cache stays bounded). */
  get size(): number {
    return this.entries.size;
  }

  /** Forgets a table entirely, including which of its columns were seen materialized (after a drop). */
  forgetTable(ref: TableRef): void {
    this.forget(ref);
    this.materialized.delete(`${ref.namespace}\u0000${ref.className}`);
  }

  clear(): void {
    this.entries.clear();
  }

  /** Compiled find/count SQL per plan shape, per schema object (storage/sql/plan-shapes.ts): shared by the adapter and its transactions. */
  readonly queries = new QueryCache<null>();
}

export type { Atomically };

/**
 * The asynchronous core of the PostgreSQL adapter, on one client: the pool, or the connection of an
 * open transaction. The shared record and schema programs (src/storage/sql) run on postgres.js as
 * prepared statements; this class chooses the schemas and statements they run with, caches
 * schemas, repairs after 42P01/42703 and maps errors.
 */
export class PgCore {
  private readonly client: PgQueryable;
  private readonly store: PgSchemaStore;
  /** Runs the record core's programs on this client. */
  private readonly driver: AsyncSqlDriver;
  /** The record operations (src/storage/sql/sql-record-core.ts). */
  private readonly records: SqlRecordPrograms;
  /** The schema operations (src/storage/sql/sql-schema-core.ts) over this core's hooks. */
  private readonly schemaOps: SqlSchemaPrograms;

  constructor(
    client: PgQueryable,
    private readonly cache: PgSchemaCache,
    atomically: Atomically,
    /** Runs schema bookkeeping in a SERIALIZABLE transaction (retried on 40001), or a savepoint of the open one. */
    private readonly serializable: Atomically,
    /** Resolves once the bookkeeping tables exist (created on first use). */
    private readonly ready: () => Promise<void>,
    /** Budget of a read whose caller names none, in ms. */
    private readonly readBudgetMs: number,
  ) {
    this.client = client;
    this.store = pgSchemaStore(client);
    this.driver = pgSqlDriver(client, { atomically, retryRaces: true });
    // Statements keyed to the column types they were compiled with (statement-key.ts).
    this.records = sqlRecordCore({ dialect: D, codec: pgCodec, keyed: keyedToSchemas });
    this.schemaOps = sqlSchemaCore(this.schemaEngine());
  }

  async getSchema(ref: TableRef): Promise<TableSchema | null> {
    const cached = this.cache.get(ref);
    if (cached) return cached;
    await this.ready();
    const loaded = await this.store.load(ref);
    // Only existing tables are cached: unknown names a client asks for never pile up.
    return loaded ? this.cache.set(ref, await this.materialized(ref, loaded)) : null;
  }

  /**
   * A recorded schema, made sure to exist physically. Another instance records a table or column
   * (in its claim transaction) before it runs the DDL, so a schema read here may name a table or
   * column not created yet; the first time this instance sees each recorded column it runs the same
   * idempotent `IF NOT EXISTS` DDL itself (racing the other instance's is safe), so no statement, in
   * a transaction or not, meets a missing table. Once per column per instance.
   */
  private async materialized(ref: TableRef, schema: TableSchema): Promise<TableSchema> {
    const missing = this.cache.unverified(ref, schema);
    if (missing.length === 0) return schema;
    const columns = missing.filter(([name]) => name !== '');
    await withPgErrors(() => this.store.materialize(ref, schema, columns));
    // First sight of the table by this instance: indexes an older version made are made again (D160).
    if (columns.length < missing.length) await withPgErrors(() => this.store.upgradeIndexes(ref, schema));
    this.cache.markMaterialized(ref, schema);
    return schema;
  }

  /**
   * The schema of a write: the cached one when it knows every column the write names, else the one
   * recorded now (another instance may have added the column since this one cached the table).
   */
  private async freshFor(ref: TableRef, columns: readonly string[]): Promise<TableSchema | null> {
    const schema = await this.getSchema(ref);
    if (!schema) return null;
    for (const column of columns) {
      if (column === 'objectId' || column === 'createdAt' || column === 'updatedAt' || Object.hasOwn(schema.columns, column)) continue;
      const loaded = await this.store.load(ref);
      return loaded ? this.cache.set(ref, await this.materialized(ref, loaded)) : null;
    }
    return schema;
  }

  /**
   * Claims in one SERIALIZABLE transaction (the limits and name rules see every racing claim, D62;
   * the first instance to record a column fixes its type and a loser gets 111), then the DDL outside
   * it with the claimed types, every statement IF NOT EXISTS (sql-schema-core.ts, `afterClaim` here).
   */
  ensureColumns(ref: TableRef, wanted: Readonly<Record<string, ColumnSchema>>, limits?: SchemaLimits): Promise<TableSchema> {
    return runAsync(this.schemaOps.ensureColumns(ref, wanted, limits), this.driver);
  }

  createIndex(ref: TableRef, index: IndexSpec): Promise<void> {
    return withPgErrors(() => runAsync(this.schemaOps.createIndex(ref, index), this.driver));
  }

  async insert(ref: TableRef, record: StoredRecord): Promise<void> {
    const columns = Object.keys(record);
    const schema = await this.freshFor(ref, columns);
    if (!schema) throw configError('postgres', `table ${ref.className} does not exist: call ensureColumns first`);
    await withPgErrors(() => this.repairingWrite(ref, schema, columns, (current) => runAsync(this.records.insert(ref, current, record), this.driver)));
  }

  get(ref: TableRef, objectId: string, projection?: Projection): Promise<StoredRecord | null> {
    return this.read(ref, null, (schema) => runAsync(this.records.get(ref, schema, objectId, projection), this.driver));
  }

  update(ref: TableRef, objectId: string, ops: readonly FieldOp[], updatedAt: DateValue): Promise<StoredRecord | null> {
    return this.write(ref, opColumns(ops), null, (schema) => runAsync(this.records.update(ref, schema, objectId, ops, updatedAt), this.driver));
  }

  updateWithoutReturning(ref: TableRef, objectId: string, ops: readonly FieldOp[], updatedAt: DateValue): Promise<boolean> {
    return this.write(ref, opColumns(ops), false, (schema) => runAsync(this.records.updateWithoutReturning(ref, schema, objectId, ops, updatedAt), this.driver));
  }

  /** The row locked (`FOR UPDATE`) and read, then updated, in one transaction (a savepoint when nested). */
  updateReturningBefore(ref: TableRef, objectId: string, ops: readonly FieldOp[], updatedAt: DateValue): Promise<UpdateImages | null> {
    return this.write(ref, opColumns(ops), null, (schema) => runAsync(this.records.updateReturningBefore(ref, schema, objectId, ops, updatedAt), this.driver));
  }

  delete(ref: TableRef, objectId: string): Promise<boolean> {
    return this.read(ref, false, (schema) => runAsync(this.records.delete(ref, schema, objectId), this.driver));
  }

  /**
   * Finds and counts over the table's scalar columns reuse their plan shape's SQL (plan-shapes.ts,
   * D208); other finds and counts, and aggregates, compile after the schemas of every table their
   * where reads are loaded. Every statement is keyed to the column types it was compiled with.
   */
  find(ref: TableRef, plan: FindPlan, options?: ReadOptions): Promise<StoredRecord[]> {
    return this.read(ref, [], async (schema) => {
      const shape = findShape(schema, plan, PG_SHAPES);
      const query = this.shaped(schema, shape) ?? (await this.compiled(ref, schema, plan.where, shape, (view) => compileFind(ref.className, plan, view, D)));
      return runAsync(this.records.find(schema, plan, () => query, null), this.budgeted(options));
    });
  }

  count(ref: TableRef, where: WhereNode, options?: ReadOptions): Promise<number> {
    return this.read(ref, 0, async (schema) => {
      const shape = countShape(schema, where, PG_SHAPES);
      const query = this.shaped(schema, shape) ?? (await this.compiled(ref, schema, where, shape, (view) => compileCount(ref.className, where, view, D)));
      return runAsync(this.records.count(query), this.budgeted(options));
    });
  }

  /** The cached SQL of a plan's shape with this plan's parameters; null when not cached. */
  private shaped(schema: TableSchema, shape: PlanShape | null): CompiledQuery | null {
    const cached = shape ? this.cache.queries.get(schema, shape.key) : null;
    return cached && shape ? { sql: cached.sql, parameters: shape.parameters } : null;
  }

  /** Compiles after loading the schemas the where reads, keyed to their column types; cached by shape when it has one seen first now. */
  private async compiled(ref: TableRef, schema: TableSchema, where: WhereNode, shape: PlanShape | null, compile: (view: SqlSchemaView) => CompiledQuery): Promise<CompiledQuery> {
    const view = await this.view(ref, schema, where);
    const query = keyedToSchemas(compile(view), view.schemas);
    if (shape && this.cache.queries.get(schema, shape.key) === undefined) this.cache.queries.remember(schema, shape, query, null);
    return query;
  }

  aggregate(ref: TableRef, plan: AggregatePlan, options?: ReadOptions): Promise<Array<Record<string, Value>>> {
    return this.read(ref, [], async (schema) => {
      const view = await this.view(ref, schema, plan.where);
      const { query, decode } = compileAggregate(ref.className, plan, view, D);
      return runAsync(this.records.aggregate({ query: keyedToSchemas(query, view.schemas), decode }), this.budgeted(options));
    });
  }

  /** A driver whose read statements are cancelled past the caller's budget (or the adapter's default), answering 11090. */
  private budgeted(options: ReadOptions | undefined): AsyncSqlDriver {
    return pgSqlDriver(this.client, { retryRaces: false, readBudgetMs: Math.max(0, options?.budgetMs ?? this.readBudgetMs) });
  }

  /** A read with the table's schema (`gone` when there is no table), repaired after 42P01/42703. */
  private async read<T>(ref: TableRef, gone: T, work: (schema: TableSchema) => Promise<T>): Promise<T> {
    const schema = await this.getSchema(ref);
    if (!schema) return gone;
    return withPgErrors(() => this.repairing(ref, schema, gone, work));
  }

  /** A write naming `columns` with a schema that knows them (`gone` when there is no table), repaired after 42P01/42703. */
  private async write<T>(ref: TableRef, columns: readonly string[], gone: T, work: (schema: TableSchema) => Promise<T>): Promise<T> {
    const schema = await this.freshFor(ref, columns);
    if (!schema) return gone;
    return withPgErrors(() => this.repairingWrite(ref, schema, columns, work));
  }

  listTables(namespace: string): Promise<string[]> {
    return runAsync(this.schemaOps.listTables(namespace), this.driver);
  }

  /**
   * A drop is planned against the schema recorded now and runs its DDL and bookkeeping in one
   * SERIALIZABLE transaction (PostgreSQL's DDL is transactional). Other instances keep a cached schema
   * for at most the cache TTL; a statement of theirs that meets the missing column or table is
   * rebuilt from the recorded schema (`repairing`).
   */
  dropColumn(ref: TableRef, column: string): Promise<boolean> {
    return withPgErrors(() => runAsync(this.schemaOps.dropColumn(ref, column), this.driver));
  }

  dropIndex(ref: TableRef, name: string): Promise<boolean> {
    return withPgErrors(() => runAsync(this.schemaOps.dropIndex(ref, name), this.driver));
  }

  dropTable(ref: TableRef): Promise<boolean> {
    return withPgErrors(() => runAsync(this.schemaOps.dropTable(ref), this.driver));
  }

  async dropNamespace(namespace: string): Promise<void> {
    await runAsync(this.schemaOps.dropNamespace(namespace), this.driver);
  }

  /**
   * PostgreSQL's hooks of the schema operations: claims and drops in a SERIALIZABLE transaction
   * retried on 40001 (`serializable`), index creation and a namespace's drop on this client with each
   * DDL statement retried on races; the DDL of a claim after it commits, then every recorded column
   * this instance has not seen made (`materialized`); the TTL cache updated or forgotten.
   */
  private schemaEngine(): SqlSchemaEngine {
    // The hooks are generator functions, which cannot be arrows.
    const core = this;
    return {
      dialect: D,
      store: pgSchemaPrograms,
      *schemaForRead(ref) {
        return yield* awaiting(core.getSchema(ref));
      },
      *ready() {
        yield* awaiting(core.ready());
      },
      *schemaWrite(kind, work) {
        if (kind === 'index' || kind === 'namespace') return yield* work();
        return yield* awaiting(core.serializable((client) => runAsync(work(), pgSqlDriver(client, { retryRaces: false }))));
      },
      *duringClaim() {},
      *afterClaim(ref, { current, claimed, added }) {
        if (!claimed) return;
        const columns: Array<readonly [string, ColumnSchema]> = added.map(([name]) => [name, claimed.columns[name]!]);
        if (!current) yield* pgSchemaPrograms.materialize(ref, claimed);
        else if (columns.length > 0) yield* pgSchemaPrograms.materialize(ref, claimed, columns);
        core.cache.markMaterialized(ref, claimed, current ? columns.map(([name]) => name) : undefined);
        // Columns another instance recorded meanwhile (the claim re-read them) are checked the same way.
        yield* awaiting(core.materialized(ref, claimed));
      },
      remember: (ref, schema) => core.cache.set(ref, schema),
      forget: (ref) => core.cache.forget(ref),
      afterDrop: (ref) => core.cache.forgetTable(ref),
      afterNamespaceDrop: () => core.cache.clear(),
    };
  }

  /**
   * Runs statements built from `schema`; when PostgreSQL answers that the table or a column does not
   * exist (42P01/42703), the statements are rebuilt from the schema recorded now and run once more.
   * Two causes: an instance stopped between recording a column and its DDL, or is mid-way (the
   * idempotent DDL of the recorded schema runs first); or another instance dropped the column or
   * the table while this one's cached schema still named it. A table that is gone answers `gone`
   * (what the operation answers for a missing table). Other tables an inner query reads are
   * repaired by their own statements.
   */
  private async repairing<T>(ref: TableRef, schema: TableSchema, gone: T, work: (schema: TableSchema) => Promise<T>): Promise<T> {
    try {
      return await work(schema);
    } catch (error) {
      const recorded = await this.afterMissing(ref, error);
      return recorded ? await work(recorded) : gone;
    }
  }

  /**
   * `repairing` for a write naming `columns`: when the table or one of those columns was dropped by
   * another instance since this one checked, they are added back with the types the write was
   * validated against (as a write naming a new column adds it) and the write runs on the result.
   */
  private async repairingWrite<T>(ref: TableRef, schema: TableSchema, columns: readonly string[], work: (schema: TableSchema) => Promise<T>): Promise<T> {
    try {
      return await work(schema);
    } catch (error) {
      const recorded = await this.afterMissing(ref, error);
      const wanted: Record<string, ColumnSchema> = {};
      for (const name of columns) {
        if (Object.hasOwn(schema.columns, name) && !(recorded && Object.hasOwn(recorded.columns, name))) wanted[name] = schema.columns[name]!;
      }
      if (!recorded || Object.keys(wanted).length > 0) return await work(await this.ensureColumns(ref, wanted));
      return await work(recorded);
    }
  }

  /** After a 42P01/42703: the recorded schema made to exist physically and cached, or null when the table is gone; other errors rethrown. */
  private async afterMissing(ref: TableRef, error: unknown): Promise<TableSchema | null> {
    const state = sqlState(error);
    if (state !== '42P01' && state !== '42703') throw error;
    this.cache.forgetTable(ref);
    const recorded = await this.store.load(ref);
    if (!recorded) return null;
    await this.store.materialize(ref, recorded, Object.entries(recorded.columns));
    this.cache.markMaterialized(ref, recorded);
    return this.cache.set(ref, recorded);
  }

  /** The schemas a compilation reads: the table's own and those of every table its where reads (loaded first). */
  private async view(ref: TableRef, schema: TableSchema, where: WhereNode): Promise<SqlSchemaView & { readonly schemas: Iterable<TableSchema | null> }> {
    const schemas = new Map<string, TableSchema | null>([[ref.className, schema]]);
    for (const className of referencedTables(where)) {
      if (!schemas.has(className)) schemas.set(className, await this.getSchema({ namespace: ref.namespace, className }));
    }
    return { namespace: ref.namespace, schema: (className) => schemas.get(className) ?? null, schemas: [...schemas.values()] };
  }
}

/** The columns field operations name (an unset of an unknown column is a no-op and names none). */
function opColumns(ops: readonly FieldOp[]): string[] {
  return ops.filter((op) => op.kind !== 'unset').map((op) => op.column);
}
