import type { DateValue, StoredRecord, Value } from '../core/values.js';
import type { FieldOp, SchemaLimits } from '../operators/field-op.js';
import type { AggregatePlan, ColumnSchema, FindPlan, IndexSpec, Projection, TableSchema, WhereNode } from '../query/plan.js';

/** A result that may be synchronous (memory, better-sqlite3) or asynchronous (network databases). */
export type Awaitable<T> = T | Promise<T>;

// FieldOp and SchemaLimits live with the operators (storage depends on operators, not the reverse).
export type { FieldOp, FieldOpKind, SchemaLimits } from '../operators/field-op.js';

/**
 * A table of one application: `namespace` keeps applications apart in one store; `className` is the
 * validated table name (`GameScore`, `_User`).
 */
export interface TableRef {
  readonly namespace: string;
  readonly className: string;
}



/**
 * Per-call options of the reads (`find`, `count`, `aggregate`). Adapters that ignore them still
 * conform; those that honour them stop a read past its budget with SvcError 11090.
 */
export interface ReadOptions {
  /** Longest the read may run, in milliseconds (the application's `query.budgetMs`). */
  readonly budgetMs?: number;
}

/** What an adapter can do natively. New flags get defaults, so adding one never breaks an adapter. */
export interface StorageCapabilities {
  /** `transaction()` gives real all-or-nothing semantics (otherwise the batch transaction mode is refused). */
  readonly transactions: boolean;
  /**
   * `updateReturningBefore` is implemented: one atomic update that also returns the record as it was
   * before. Without it the core emulates it (a `get` then the `update` in one transaction), and pays
   * for it only while write observers listen.
   */
  readonly updateReturnsBefore?: boolean;
}

/** The record before and after one update (`updateReturningBefore`). */
export interface UpdateImages {
  readonly before: StoredRecord;
  readonly after: StoredRecord;
}

/**
 * The storage port. It receives validated plans only, never wire JSON. Every method may return a
 * value or a promise. Contract (checked by `svcbase/testing`'s conformance suite):
 *
 * - Records carry `objectId`, `createdAt`, `updatedAt` (Date values, millisecond precision); the core
 *   assigns them. `null` and a missing column are the same value.
 * - `ensureColumns` creates the table on first use, records column types, and throws SvcError 111 when
 *   a column already has another type. It is atomic: of two racing first writes with different types,
 *   exactly one wins. Names are case-sensitive, but a table whose name differs only in letter case
 *   from another table of its namespace is refused with 11080, a column differing only in case from
 *   another column of its table (or a built-in one) with 11081, and with `limits`, a table or
 *   column beyond them with 11082/11083 (the shared rules of src/operators/schema-rules.ts). When it
 *   throws, nothing is added.
 * - `update` applies all operations atomically (200 concurrent Increments end at exactly +200) and
 *   returns the record after the update, or `null` when it does not exist. An `unset` of a column
 *   the table does not have is a no-op (the column is already missing), never an error.
 * - Unique index violations throw SvcError 401.
 * - `find`/`count`/`aggregate` return exactly what the reference evaluator (the memory adapter)
 *   returns, in the same order.
 */
export interface StorageAdapter {
  readonly name: string;
  readonly capabilities: StorageCapabilities;

  getSchema(table: TableRef): Awaitable<TableSchema | null>;
  ensureColumns(table: TableRef, columns: Readonly<Record<string, ColumnSchema>>, limits?: SchemaLimits): Awaitable<TableSchema>;
  /** Idempotent for an identical spec. A unique index over existing duplicates throws 401. */
  createIndex(table: TableRef, index: IndexSpec): Awaitable<void>;

  insert(table: TableRef, record: StoredRecord): Awaitable<void>;
  get(table: TableRef, objectId: string, projection?: Projection): Awaitable<StoredRecord | null>;
  update(table: TableRef, objectId: string, ops: readonly FieldOp[], updatedAt: DateValue): Awaitable<StoredRecord | null>;
  delete(table: TableRef, objectId: string): Awaitable<boolean>;
  /**
   * Like `update`, but answers only whether the record exists: for callers that need nothing of the
   * record after the update (the REST update answers only `updatedAt`). Optional: where missing,
   * callers use `update`. An adapter implements it when not reading the row back saves work.
   */
  updateWithoutReturning?(table: TableRef, objectId: string, ops: readonly FieldOp[], updatedAt: DateValue): Awaitable<boolean>;
  /** Like `update`, also returning the before-image; present when `capabilities.updateReturnsBefore`. */
  updateReturningBefore?(table: TableRef, objectId: string, ops: readonly FieldOp[], updatedAt: DateValue): Awaitable<UpdateImages | null>;

  find(table: TableRef, plan: FindPlan, options?: ReadOptions): Awaitable<StoredRecord[]>;
  count(table: TableRef, where: WhereNode, options?: ReadOptions): Awaitable<number>;
  aggregate(table: TableRef, plan: AggregatePlan, options?: ReadOptions): Awaitable<Array<Record<string, Value>>>;

  /**
   * Runs `work` with exclusive, all-or-nothing access: every write made through `tx` commits together
   * or not at all, and no other caller's operation interleaves.
   */
  transaction<T>(work: (tx: StorageAdapter) => Promise<T>): Promise<T>;

  /** Drops every table of a namespace (tests, application removal). */
  dropNamespace(namespace: string): Awaitable<void>;
  /**
   * The class names of every table of a namespace, in no particular order (the schema API lists
   * them). Optional: without it `GET /1/schemas` answers 11181.
   */
  listTables?(namespace: string): Awaitable<string[]>;
  /**
   * Removing schema (the schema API's field, index and table deletes). Optional: without them those
   * requests answer 10070/10074. Each is atomic and leaves no trace in `getSchema`.
   * - `dropColumn` removes a column with its data (a Relation's links too) and every declared index
   *   naming it; false when the table has no such column.
   * - `dropIndex` removes a declared index; false when there is none of that name.
   * - `dropTable` removes a table with its records, relations and indexes; false when it does not exist.
   */
  dropColumn?(table: TableRef, column: string): Awaitable<boolean>;
  dropIndex?(table: TableRef, name: string): Awaitable<boolean>;
  dropTable?(table: TableRef): Awaitable<boolean>;
  /**
   * Drops what this adapter caches of a table's schema, because another instance changed it (the
   * schema API announces its changes on the service's bus). Optional: an adapter without a schema
   * cache, or one used by one instance only, leaves it out.
   */
  forgetSchema?(table: TableRef): void;
  close(): Awaitable<void>;
}
