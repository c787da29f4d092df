import { configError } from '../../core/errors.js';
import type { DateValue, GeoPointValue, PointerValue, StoredRecord, Value } from '../../core/values.js';
import { dateMs, dateValue } from '../../core/values.js';
import type { ColumnSchema, TableSchema } from '../../query/plan.js';
import { geoLatColumn, geoLngColumn } from '../../query/sql/layout.js';

/**
 * Values <-> physical columns, exactly as src/query/sql/layout.ts lays them out: String TEXT, Number
 * REAL, Boolean INTEGER 0/1, Date INTEGER epoch ms, Pointer TEXT objectId (class in the schema),
 * File/Array/Object TEXT JSON, GeoPoint two REAL columns `<col>$lat`/`<col>$lng`, Relation no column.
 */

/** A physical column name and the parameter bound to it. */
export type ColumnParam = readonly [name: string, param: string | number | null];

/** Physical columns of a logical column (none for a Relation). */
export function physicalColumns(name: string, column: ColumnSchema): string[] {
  if (column.type === 'Relation') return [];
  if (column.type === 'GeoPoint') return [geoLatColumn(name), geoLngColumn(name)];
  return [name];
}

/** Parameters for a column's physical columns; null or missing clears them. */
export function encodeColumn(name: string, column: ColumnSchema, value: Value | undefined): ColumnParam[] {
  if (column.type === 'Relation') return [];
  if (value === undefined || value === null) return physicalColumns(name, column).map((c) => [c, null] as const);
  switch (column.type) {
    case 'GeoPoint': {
      const g = value as GeoPointValue;
      return [[geoLatColumn(name), g.latitude], [geoLngColumn(name), g.longitude]];
    }
    case 'String':
    case 'Number':
      return [[name, value as string | number]];
    case 'Boolean':
      return [[name, value ? 1 : 0]];
    case 'Date':
      return [[name, dateMs(value as DateValue)]];
    case 'Pointer':
      return [[name, (value as PointerValue).objectId]];
    case 'File':
    case 'Array':
    case 'Object':
      return [[name, JSON.stringify(value)]];
  }
}

/** Every physical column of a record for an INSERT, built-in columns first. */
export function encodeRecord(schema: TableSchema, record: StoredRecord): ColumnParam[] {
  const out: ColumnParam[] = [
    ['objectId', record.objectId],
    ['createdAt', dateMs(record.createdAt)],
    ['updatedAt', dateMs(record.updatedAt)],
  ];
  for (const key of Object.keys(record)) {
    if (key === 'objectId' || key === 'createdAt' || key === 'updatedAt') continue;
    const column = schema.columns[key];
    if (!column) throw configError('sqlite', `column '${key}' is not in the schema of ${schema.className}: call ensureColumns first`);
    out.push(...encodeColumn(key, column, record[key]));
  }
  return out;
}

/** A physical row back to a record; NULL columns are left out (null and missing are the same). */
export function decodeRow(schema: TableSchema, row: Readonly<Record<string, unknown>>): StoredRecord {
  const out: Record<string, Value> = {
    objectId: row.objectId as string,
    createdAt: dateValue(row.createdAt as number),
    updatedAt: dateValue(row.updatedAt as number),
  };
  for (const [name, column] of Object.entries(schema.columns)) {
    const value = decodeColumn(name, column, row);
    if (value !== null) out[name] = value;
  }
  return out as StoredRecord;
}

function decodeColumn(name: string, column: ColumnSchema, row: Readonly<Record<string, unknown>>): Value {
  if (column.type === 'Relation') return null;
  if (column.type === 'GeoPoint') {
    const latitude = row[geoLatColumn(name)];
    const longitude = row[geoLngColumn(name)];
    if (typeof latitude !== 'number' || typeof longitude !== 'number') return null;
    return { __type: 'GeoPoint', latitude, longitude };
  }
  const raw = row[name];
  if (raw === null || raw === undefined) return null;
  switch (column.type) {
    case 'String':
      return String(raw);
    case 'Number':
      return Number(raw);
    case 'Boolean':
      return raw === 1 || raw === 1n || raw === true;
    case 'Date':
      return dateValue(Number(raw));
    case 'Pointer':
      return { __type: 'Pointer', className: column.targetClass ?? '', objectId: String(raw) };
    case 'File':
    case 'Array':
    case 'Object':
      return JSON.parse(String(raw)) as Value;
  }
}
