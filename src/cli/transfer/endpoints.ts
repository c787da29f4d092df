import type { Json, JsonObject } from '../../core/wire-values.js';
import type { FileRef } from './rest-client.js';

/** One table as the schema API describes it (`GET /1/schemas`). */
export interface TableDescription {
  readonly className: string;
  readonly fields: Readonly<Record<string, { readonly type: string; readonly targetClass?: string }>>;
  readonly indexes?: JsonObject;
  readonly classLevelPermissions?: JsonObject;
}

/** Where records come from: a server over the REST API, or an export folder. */
export interface TransferSource {
  readonly label: string;
  tables(): Promise<TableDescription[]>;
  count(className: string): Promise<number>;
  /**
   * Up to `limit` records after objectId `after` (null: from the start), in objectId order, as the
   * REST API returns them, each Relation column carrying its members'
   * `{"__type":"Relation","className":C,"objectIds":[...]}`.
   */
  page(table: TableDescription, after: string | null, limit: number): Promise<JsonObject[]>;
  /** The bytes of a File column's url. */
  download(url: string): Promise<Uint8Array>;
}

/** Where records go: a server's import route, or an export folder. */
export interface TransferSink {
  readonly label: string;
  /** Creates the table with its fields and indexes (user tables), before its records. */
  prepare(table: TableDescription): Promise<void>;
  write(className: string, records: readonly JsonObject[]): Promise<{ inserted: number; existing: number }>;
  /**
   * Which of `objectIds` the target already holds (their records are skipped by `write`, so their
   * files are not copied again). Absent: none (a sink that starts empty, as an export folder).
   */
  existing?(className: string, objectIds: readonly string[]): Promise<ReadonlySet<string>>;
  /** After the records: class-level permissions. */
  finish(table: TableDescription): Promise<void>;
  /** Stores a file; the ref replaces the source's in every record that names it. */
  upload(filename: string, bytes: Uint8Array): Promise<FileRef>;
  count(className: string): Promise<number>;
  close(): Promise<void>;
}

/** Columns every table has; the schema API refuses them in a create. */
export const BUILT_IN_FIELDS: ReadonlySet<string> = new Set(['objectId', 'createdAt', 'updatedAt', 'ACL']);

/** System tables a transfer copies; the others (`_Session`, `_AuthLink`, ...) hold the source server's credentials or internals. */
const COPIED_SYSTEM_TABLES: ReadonlySet<string> = new Set(['_User', '_Role', '_Installation']);

export function isCopiedTable(className: string): boolean {
  return !className.startsWith('_') || COPIED_SYSTEM_TABLES.has(className);
}

export const isSystemTable = (className: string) => className.startsWith('_');

/** The REST path listing a table's records. */
export function recordsPath(className: string): string {
  if (className === '_User') return '/1/users';
  if (className === '_Role') return '/1/roles';
  if (className === '_Installation') return '/1/installations';
  return `/1/classes/${encodeURIComponent(className)}`;
}

/** Calls `visit` for every File value (`{"__type":"File", url}`) in a record, and puts back what it returns. */
export async function mapFiles(value: Json, visit: (file: JsonObject) => Promise<JsonObject>): Promise<Json> {
  if (Array.isArray(value)) {
    const out: Json[] = [];
    for (const item of value) out.push(await mapFiles(item, visit));
    return out;
  }
  if (typeof value !== 'object' || value === null) return value;
  if (value['__type'] === 'File' && typeof value['url'] === 'string') return visit(value);
  const out: JsonObject = {};
  // defineProperty: a `__proto__` key stays data (the server refuses it with its code) instead of a prototype.
  for (const [key, item] of Object.entries(value)) Object.defineProperty(out, key, { value: await mapFiles(item, visit), enumerable: true, writable: true, configurable: true });
  return out;
}
