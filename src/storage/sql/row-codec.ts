import { svcError } from '../../core/errors.js';
import type { DateValue, GeoPointValue, PointerValue, StoredRecord, Value } from '../../core/values.js';
import { dateMs } from '../../core/values.js';
import type { ColumnSchema, TableSchema } from '../../query/plan.js';
import { ACL_READ_COLUMN, carriesAclRead } from '../../query/sql/acl-read-column.js';
import { geoLatColumn, geoLngColumn, physicalColumns } from '../../query/sql/layout.js';
import type { CodecDialect } from './codec-dialect.js';
import { columnDecoders, decodeRowWith, encodeRecordWith } from './column-decoders.js';
import { type ArrayRowLayout, type RowSource, rowLayouts } from './row-layout.js';

/** A physical column name and the parameter bound to it. */
export type ColumnParam = readonly [name: string, param: unknown];

/**
 * Values <-> physical columns of one SQL engine, as src/query/sql/layout.ts lays them out: String and
 * Pointer (its objectId) text, Number a float, Boolean and JSON (File/Array/Object) in the engine's
 * form, Date epoch ms, GeoPoint two float columns `<col>$lat`/`<col>$lng`, Relation no column; the
 * `ACL` column also writes its read principals into `ACL$read`. Rows are decoded through layouts
 * compiled once per (frozen) schema object.
 */
export interface RowCodec {
  /** Parameters for a column's physical columns; null or missing clears them. */
  encodeColumn(name: string, column: ColumnSchema, value: Value | undefined): ColumnParam[];
  /** Every physical column of a record for an INSERT, built-in columns first. */
  encodeRecord(schema: TableSchema, record: StoredRecord): ColumnParam[];
  /** An object row (`SELECT *`, `RETURNING *`) back to a record; NULL columns are left out. */
  decodeRow(schema: TableSchema, row: RowSource): StoredRecord;
  /** The physical columns in the order `decodeValues` reads them: `physicalColumnNames(schema)`, which `compileFind` selects. */
  arrayLayout(schema: TableSchema): ArrayRowLayout;
  /** An array row of `arrayLayout(schema).names` back to a record: the record `decodeRow` makes of the same row. */
  decodeValues(schema: TableSchema, values: readonly unknown[], layout?: ArrayRowLayout): StoredRecord;
}

/** Whether a value holds U+0000 in a string or an object key. */
function holdsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) return value.some(holdsNul);
  for (const key of Object.keys(value)) if (key.includes('\u0000') || holdsNul((value as Record<string, unknown>)[key])) return true;
  return false;
}

/** The row codec of the engine `dialect` describes. A value the engine cannot store is refused before anything is written. */
export function createRowCodec(dialect: CodecDialect): RowCodec {
  const refusesNul = !dialect.storesNul;

  function encodeValue(name: string, column: ColumnSchema, value: Value | undefined): ColumnParam[] {
    if (value === undefined || value === null) return physicalColumns(name, column).map((c) => [c, null] as const);
    if (refusesNul && column.type !== 'Number' && column.type !== 'Boolean' && column.type !== 'GeoPoint' && holdsNul(value)) throw svcError('nulCharacterRefused', name);
    switch (column.type) {
      case 'Relation':
        return [];
      case 'GeoPoint': {
        const g = value as GeoPointValue;
        return [[geoLatColumn(name), g.latitude], [geoLngColumn(name), g.longitude]];
      }
      case 'String':
      case 'Number':
        return [[name, value]];
      case 'Boolean':
        return [[name, dialect.booleanParam(value === true)]];
      case 'Date':
        return [[name, dateMs(value as DateValue)]];
      case 'Pointer':
        return [[name, (value as PointerValue).objectId]];
      case 'File':
      case 'Array':
      case 'Object':
        return [[name, dialect.jsonParam(value)]];
    }
  }

  function encodeColumn(name: string, column: ColumnSchema, value: Value | undefined): ColumnParam[] {
    if (column.type === 'Relation') return [];
    if (carriesAclRead(name, column)) return [...encodeValue(name, column, value), [ACL_READ_COLUMN, dialect.aclReadParam(value)]];
    return encodeValue(name, column, value);
  }

  const layouts = rowLayouts(dialect.engine, columnDecoders(dialect.values), dialect.columnKey);

  return {
    encodeColumn,
    encodeRecord(schema, record) {
      if (refusesNul && record.objectId.includes('\u0000')) throw svcError('nulCharacterRefused', 'objectId');
      return encodeRecordWith(dialect.engine, schema, record, encodeColumn);
    },
    decodeRow: (schema, row) => decodeRowWith(layouts.objectLayout(schema), row),
    arrayLayout: (schema) => layouts.arrayLayout(schema),
    decodeValues: (schema, values, layout = layouts.arrayLayout(schema)) => decodeRowWith(layout, values as unknown as RowSource),
  };
}
