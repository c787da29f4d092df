import type { ColumnType } from '../../core/values.js';
import type { ColumnSchema } from '../plan.js';

/**
 * The physical layout of a table in the SQL adapters: one place, shared by the storage adapters
 * (which create and read tables) and the query compilers (which address columns).
 *
 * - Table `"<namespace>__<className>"`; columns `objectId` TEXT PRIMARY KEY, `createdAt` and
 *   `updatedAt` INTEGER epoch ms (indexed: createdAt).
 * - String TEXT, Number REAL, Boolean INTEGER 0/1, Date INTEGER epoch ms, Pointer TEXT objectId (the
 *   target class lives in the schema), File/Array/Object TEXT JSON (nested typed values keep their
 *   tagged JSON shape, nested Dates as `{"__type":"Date","iso":"<canonical ISO>"}`).
 * - GeoPoint: two REAL columns `"<col>$lat"` and `"<col>$lng"` (`$` cannot occur in field names).
 * - ACL (an Object column named `ACL`): where the dialect has `aclReadColumn` (the SQLite adapter's
 *   `sqliteAdapterDialect`), also a TEXT column `"ACL$read"` with its read principals (acl-read-column.ts),
 *   right after `updatedAt` in a table created with its ACL column, and last in each non-unique
 *   declared index of the table (ddl-compiler.ts, D147).
 * - Relation: no column; a join table `"<namespace>__<className>$<col>"` with `owningId`, `relatedId`
 *   (primary key on both, index on relatedId).
 * - The query compilers rely on two more facts: TEXT columns keep SQLite's default BINARY
 *   collation (code point order, as the evaluator compares strings), and a Relation's join table
 *   exists whenever the schema lists the column.
 * - Schema: table `"_svc_schema"` (namespace, className, column, type, targetClass) and
 *   `"_svc_indexes"` (namespace, className, name, columns JSON, unique).
 */
export const SCHEMA_TABLE = '_svc_schema';
export const INDEX_TABLE = '_svc_indexes';

export function physicalTableName(namespace: string, className: string): string {
  return `${namespace}__${className}`;
}

export function relationTableName(namespace: string, className: string, column: string): string {
  return `${namespace}__${className}$${column}`;
}

export function geoLatColumn(column: string): string {
  return `${column}$lat`;
}

export function geoLngColumn(column: string): string {
  return `${column}$lng`;
}

/**
 * What a physical column holds; each dialect names the SQL type (`SqlDialect.columnType`): SQLite
 * TEXT/REAL/INTEGER/INTEGER/TEXT, PostgreSQL text/double precision/boolean/bigint/jsonb.
 */
export type StorageKind = 'text' | 'number' | 'boolean' | 'epoch_ms' | 'json';

/** The storage kind of each column type's physical columns (a GeoPoint has two `number` columns). */
export const STORAGE_KIND: Readonly<Record<Exclude<ColumnType, 'Relation'>, StorageKind>> = {
  String: 'text',
  Number: 'number',
  Boolean: 'boolean',
  Date: 'epoch_ms',
  Pointer: 'text',
  File: 'json',
  Array: 'json',
  Object: 'json',
  GeoPoint: 'number',
};

/** Physical columns of a logical column (none for a Relation, two for a GeoPoint). */
export function physicalColumns(name: string, column: ColumnSchema): string[] {
  if (column.type === 'Relation') return [];
  if (column.type === 'GeoPoint') return [geoLatColumn(name), geoLngColumn(name)];
  return [name];
}
