import type { StoredRecord } from '../../core/values.js';
import type { TableSchema } from '../../query/plan.js';
import type { Awaitable, TableRef } from '../port.js';

/**
 * The persistence primitives `createStorageAdapter` builds a whole storage adapter on: schemas,
 * records by id, and Relation links, stored as whatever the backend likes (rows, documents, JSON
 * text under keys). A backend never validates, merges schemas, applies field operations, evaluates
 * queries or enforces unique indexes: the factory does all of that, the same way for every backend.
 *
 * Every method may return a value or a promise. The factory runs one operation at a time per
 * adapter, so a backend needs no locking of its own. Values passed in are fresh copies the backend
 * may keep; values it returns are copied by the factory before anyone sees them.
 */
export interface RecordBackend {
  /** The table's schema as last saved, or null when the table does not exist. */
  loadSchema(table: TableRef): Awaitable<TableSchema | null>;
  /** Creates the table (first save) or replaces its schema. */
  saveSchema(table: TableRef, schema: TableSchema): Awaitable<void>;
  /** The class names of every table of a namespace, in any order. */
  listTables(namespace: string): Awaitable<readonly string[]>;
  /** Removes a table: its schema, records and Relation links. */
  dropTable(table: TableRef): Awaitable<void>;

  readRecord(table: TableRef, objectId: string): Awaitable<StoredRecord | null>;
  /** Stores a record under its `objectId`, replacing one stored before. */
  writeRecord(table: TableRef, record: StoredRecord): Awaitable<void>;
  /** Removes a record; false when there was none. */
  deleteRecord(table: TableRef, objectId: string): Awaitable<boolean>;
  /** Every record of the table, in any order (queries filter, sort and page them). */
  scanRecords(table: TableRef): Awaitable<Iterable<StoredRecord>>;
  /**
   * Optional: whether `scanRecords` yields the table's records in (createdAt, objectId) order, the
   * default order of a find, which may then stop once its page is full. A store that appends in
   * creation order (an in-memory map written as the clock moves forward) says so; absent is false.
   */
  inCreationOrder?(table: TableRef): Awaitable<boolean>;

  /** The objectIds an owner record links to through a Relation column (empty when none). */
  readRelation(table: TableRef, column: string, ownerId: string): Awaitable<readonly string[]>;
  /** Replaces an owner's links through a Relation column; an empty list removes them. */
  writeRelation(table: TableRef, column: string, ownerId: string, ids: readonly string[]): Awaitable<void>;
  /** Every owner with links through a Relation column, with its linked objectIds. */
  scanRelation(table: TableRef, column: string): Awaitable<Iterable<readonly [string, readonly string[]]>>;

  /** Releases the backend's resources (optional). */
  close?(): Awaitable<void>;
}

/** What a backend tells the factory about itself. Every flag is optional and off by default. */
export interface RecordBackendTraits {
  /**
   * `scanRecords` returns an iterable that may be iterated again and that only writes change (the
   * factory runs one operation at a time, so none runs while a read evaluates): reads then evaluate
   * over it directly instead of copying the table's records into an array first.
   */
  readonly stableScans?: boolean;
}
