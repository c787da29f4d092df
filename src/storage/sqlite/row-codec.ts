import type { DateValue, GeoPointValue, PointerValue, StoredRecord, Value } from '../../core/values.js';
import { dateMs } from '../../core/values.js';
import type { ColumnSchema, TableSchema } from '../../query/plan.js';
import { ACL_READ_COLUMN, aclReadText, carriesAclRead } from '../../query/sql/acl-read-column.js';
import { geoLatColumn, geoLngColumn, physicalColumns } from '../../query/sql/layout.js';
import { columnDecoders, decodeRowWith, encodeRecordWith } from '../sql/column-decoders.js';
import { type ArrayRowLayout, type RowSource, rowLayouts } from '../sql/row-layout.js';

/**
 * Values <-> physical columns, exactly as src/query/sql/layout.ts lays them out: String TEXT, Number
 * REAL, Boolean INTEGER 0/1, Date INTEGER epoch ms, Pointer TEXT objectId (class in the schema),
 * File/Array/Object TEXT JSON, GeoPoint two REAL columns `<col>$lat`/`<col>$lng`, Relation no column;
 * the `ACL` column also writes its read principals into `ACL$read` (acl-read-column.ts).
 */

/** A physical column name and the parameter bound to it. */
export type ColumnParam = readonly [name: string, param: string | number | null];

export { physicalColumns };

/** Parameters for a column's physical columns; null or missing clears them. */
export function encodeColumn(name: string, column: ColumnSchema, value: Value | undefined): ColumnParam[] {
  if (column.type === 'Relation') return [];
  if (carriesAclRead(name, column)) return [[name, value === undefined || value === null ? null : JSON.stringify(value)], [ACL_READ_COLUMN, aclReadText(value)]];
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
  return encodeRecordWith('sqlite', schema, record, encodeColumn);
}

/** A physical row: an object by column name, or an array (`statement.raw(true)`) by position. */
type Row = Readonly<Record<string, unknown>>;
type Values = readonly unknown[];

/** A physical row back to a record; NULL columns are left out (null and missing are the same). */
export function decodeRow(schema: TableSchema, row: Row): StoredRecord {
  return decodeRowWith(layouts.objectLayout(schema), row);
}

/**
 * The physical columns of a schema in the order `decodeValues` reads them (the order of
 * `physicalColumnNames`, which `compileFind` selects), compiled once per (frozen) schema object.
 */
export function arrayLayout(schema: TableSchema): ArrayRowLayout {
  return layouts.arrayLayout(schema);
}

/**
 * A row read as an array (`statement.raw(true)`) of the columns `arrayLayout(schema).names`, back
 * to a record: the same record `decodeRow` makes of the row as an object. better-sqlite3 builds
 * array rows in about half the time of object rows (no property per column).
 */
export function decodeValues(schema: TableSchema, values: Values, layout: ArrayRowLayout = arrayLayout(schema)): StoredRecord {
  return decodeRowWith(layout, values as unknown as RowSource);
}

/** JSON text of a File/Array/Object column back to its value. */
function parseJson(raw: unknown): Value {
  if (typeof raw !== 'string') return JSON.parse(String(raw)) as Value;
  // Empty containers are common (no tags yet, empty settings): skip the parser for them.
  if (raw.length === 2) {
    if (raw === '[]') return [];
    if (raw === '{}') return {};
  }
  return JSON.parse(raw) as Value;
}

/** Layouts compiled once per (frozen) schema object: rows are decoded without re-reading the schema. */
const layouts = rowLayouts('sqlite', columnDecoders({ boolean: (raw) => raw === 1 || raw === 1n || raw === true, json: parseJson }));
