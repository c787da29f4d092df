import { svcError } from '../../core/errors.js';
import type { DateValue, GeoPointValue, PointerValue, StoredRecord, Value } from '../../core/values.js';
import { dateMs } from '../../core/values.js';
import type { ColumnSchema, TableSchema } from '../../query/plan.js';
import { geoLatColumn, geoLngColumn, physicalColumns } from '../../query/sql/layout.js';
import { shortIdentifier } from '../../query/sql/long-identifier.js';
import { ACL_READ_COLUMN, carriesAclRead } from '../../query/sql/acl-read-column.js';
import { aclReadPrincipals } from './pg-acl-read.js';
import { columnDecoders, decodeRowWith, encodeRecordWith } from '../sql/column-decoders.js';
import { type ArrayRowLayout, type RowSource, rowLayouts } from '../sql/row-layout.js';

/**
 * Values <-> PostgreSQL columns, as src/query/sql/layout.ts lays them out with the PostgreSQL types
 * of D44: String/Pointer text, Number double precision, Boolean boolean, Date bigint epoch ms,
 * File/Array/Object jsonb (bound as the value itself: the driver JSON-encodes a jsonb parameter),
 * GeoPoint two double precision columns, Relation no column. Rows come back from postgres.js with
 * bigint as a string and jsonb already parsed; both are accepted in either form.
 */

/** A physical column name and the parameter bound to it. */
export type PgColumnParam = readonly [name: string, param: unknown];

/** The key PostgreSQL gives a physical column in result rows (long names are hashed, D60). */
export const pgColumnKey = (name: string): string => shortIdentifier(name, 63);

/** Whether a value holds U+0000 in a string or an object key (PostgreSQL text and jsonb cannot hold it). */
function holdsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) return value.some(holdsNul);
  for (const key of Object.keys(value)) if (key.includes('\u0000') || holdsNul((value as Record<string, unknown>)[key])) return true;
  return false;
}

/**
 * Parameters for a column's physical columns; null or missing clears them. A String, Pointer or
 * JSON value holding U+0000 is refused with 11120 before anything is written (D63).
 */
export function encodePgColumn(name: string, column: ColumnSchema, value: Value | undefined): PgColumnParam[] {
  if (column.type === 'Relation') return [];
  if (carriesAclRead(name, column)) return [...encodeValue(name, column, value), [ACL_READ_COLUMN, aclReadPrincipals(value)]];
  return encodeValue(name, column, value);
}

function encodeValue(name: string, column: ColumnSchema, value: Value | undefined): PgColumnParam[] {
  if (column.type === 'Relation') return [];
  if (value === undefined || value === null) return physicalColumns(name, column).map((c) => [c, null] as const);
  if (column.type !== 'Number' && column.type !== 'Boolean' && column.type !== 'GeoPoint' && holdsNul(value)) throw svcError('nulCharacterRefused', name);
  switch (column.type) {
    case 'GeoPoint': {
      const g = value as GeoPointValue;
      return [[geoLatColumn(name), g.latitude], [geoLngColumn(name), g.longitude]];
    }
    case 'String':
    case 'Number':
      return [[name, value]];
    case 'Boolean':
      return [[name, value === true]];
    case 'Date':
      return [[name, dateMs(value as DateValue)]];
    case 'Pointer':
      return [[name, (value as PointerValue).objectId]];
    case 'File':
    case 'Array':
    case 'Object':
      return [[name, jsonParam(value)]];
  }
}

/**
 * A JSON column's parameter. The driver JSON-encodes values bound to a jsonb parameter, but types an
 * array by its first element (`[true]` would be sent as a boolean array): arrays go wrapped in an
 * object whose `toJSON` is the array, which the driver leaves untyped and encodes the same way.
 */
function jsonParam(value: Value): unknown {
  return Array.isArray(value) ? { toJSON: () => value } : value;
}

/** Every physical column of a record for an INSERT, built-in columns first. */
export function encodePgRecord(schema: TableSchema, record: StoredRecord): PgColumnParam[] {
  if (record.objectId.includes('\u0000')) throw svcError('nulCharacterRefused', 'objectId');
  return encodeRecordWith('postgres', schema, record, encodePgColumn);
}

/** How rows of a schema read as arrays: the physical columns to select, in order. */
export type PgArrayLayout = ArrayRowLayout;

/** An object row (`RETURNING *`, `SELECT *`) back to a record; NULL columns are left out. */
export function decodePgRow(schema: TableSchema, row: RowSource): StoredRecord {
  return decodeRowWith(layouts.objectLayout(schema), row);
}

/** The array layout of a schema: `physicalColumnNames(schema)` order, which `compileFind` selects. */
export function pgArrayLayout(schema: TableSchema): PgArrayLayout {
  return layouts.arrayLayout(schema);
}

/** An array row of `pgArrayLayout(schema).names` back to a record. */
export function decodePgValues(schema: TableSchema, values: readonly unknown[], layout: PgArrayLayout = pgArrayLayout(schema)): StoredRecord {
  return decodeRowWith(layout, values as unknown as RowSource);
}

const layouts = rowLayouts(
  'postgres',
  columnDecoders({
    boolean: (raw) => raw === true || raw === 't' || raw === 1,
    // Parsed by the driver, or its text when the client parses no jsonb.
    json: (raw) => (typeof raw === 'string' ? (JSON.parse(raw) as Value) : (raw as Value)),
  }),
  pgColumnKey,
);
