import { configError, svcError } from '../../core/errors.js';
import type { DateValue, GeoPointValue, PointerValue, StoredRecord, Value } from '../../core/values.js';
import { dateMs } from '../../core/values.js';
import { isoOfMs } from '../../core/time.js';
import type { ColumnSchema, TableSchema } from '../../query/plan.js';
import { geoLatColumn, geoLngColumn, physicalColumns } from '../../query/sql/layout.js';
import { shortIdentifier } from '../../query/sql/long-identifier.js';
import { type ArrayRowLayout, type ColumnDecoder, type RowKey, type RowLayout, type RowSource, rowLayouts } from '../sql/row-layout.js';

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
  const out: PgColumnParam[] = [
    ['objectId', record.objectId],
    ['createdAt', dateMs(record.createdAt)],
    ['updatedAt', dateMs(record.updatedAt)],
  ];
  for (const key of Object.keys(record)) {
    if (key === 'objectId' || key === 'createdAt' || key === 'updatedAt') continue;
    const column = Object.hasOwn(schema.columns, key) ? schema.columns[key] : undefined;
    if (!column) throw configError('postgres', `column '${key}' is not in the schema of ${schema.className}: call ensureColumns first`);
    out.push(...encodePgColumn(key, column, record[key]));
  }
  return out;
}

/** How rows of a schema read as arrays: the physical columns to select, in order. */
export type PgArrayLayout = ArrayRowLayout;

/** An object row (`RETURNING *`, `SELECT *`) back to a record; NULL columns are left out. */
export function decodePgRow(schema: TableSchema, row: RowSource): StoredRecord {
  return decodeWith(layouts.objectLayout(schema), row);
}

/** The array layout of a schema: `physicalColumnNames(schema)` order, which `compileFind` selects. */
export function pgArrayLayout(schema: TableSchema): PgArrayLayout {
  return layouts.arrayLayout(schema);
}

/** An array row of `pgArrayLayout(schema).names` back to a record. */
export function decodePgValues(schema: TableSchema, values: readonly unknown[], layout: PgArrayLayout = pgArrayLayout(schema)): StoredRecord {
  return decodeWith(layout, values as unknown as RowSource);
}

function decodeWith(layout: RowLayout, source: RowSource): StoredRecord {
  const createdMs = Number(source[layout.createdAt]);
  const updatedMs = Number(source[layout.updatedAt]);
  const createdIso = isoOfMs(createdMs);
  const out: Record<string, Value> = {
    objectId: String(source[layout.objectId]),
    createdAt: { __type: 'Date', iso: createdIso },
    updatedAt: { __type: 'Date', iso: updatedMs === createdMs ? createdIso : isoOfMs(updatedMs) },
  };
  for (const decode of layout.decoders) decode(source, out);
  return out as StoredRecord;
}

/** A jsonb value: parsed by the driver, or its text when the client parses no jsonb. */
function jsonValue(raw: unknown): Value {
  return typeof raw === 'string' ? (JSON.parse(raw) as Value) : (raw as Value);
}

function columnDecoder(name: string, column: ColumnSchema, at: RowKey, latAt: RowKey, lngAt: RowKey): ColumnDecoder | null {
  switch (column.type) {
    case 'Relation':
      return null;
    case 'GeoPoint':
      return (source, out) => {
        const latitude = source[latAt];
        const longitude = source[lngAt];
        if (latitude !== null && latitude !== undefined && longitude !== null && longitude !== undefined) {
          out[name] = { __type: 'GeoPoint', latitude: Number(latitude), longitude: Number(longitude) };
        }
      };
    case 'String':
      return (source, out) => {
        const raw = source[at];
        if (raw !== null && raw !== undefined) out[name] = String(raw);
      };
    case 'Number':
      return (source, out) => {
        const raw = source[at];
        if (raw !== null && raw !== undefined) out[name] = Number(raw);
      };
    case 'Boolean':
      return (source, out) => {
        const raw = source[at];
        if (raw !== null && raw !== undefined) out[name] = raw === true || raw === 't' || raw === 1;
      };
    case 'Date':
      return (source, out) => {
        const raw = source[at];
        if (raw !== null && raw !== undefined) out[name] = { __type: 'Date', iso: isoOfMs(Number(raw)) };
      };
    case 'Pointer': {
      const className = column.targetClass ?? '';
      return (source, out) => {
        const raw = source[at];
        if (raw !== null && raw !== undefined) out[name] = { __type: 'Pointer', className, objectId: String(raw) };
      };
    }
    case 'File':
    case 'Array':
    case 'Object':
      return (source, out) => {
        const raw = source[at];
        if (raw !== null && raw !== undefined) out[name] = jsonValue(raw);
      };
  }
}

const layouts = rowLayouts('postgres', columnDecoder, pgColumnKey);
