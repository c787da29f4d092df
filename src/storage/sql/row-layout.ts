import type { Value } from '../../core/values.js';
import type { ColumnSchema, TableSchema } from '../../query/plan.js';
import { physicalColumnNames } from '../../query/sql/find-compiler.js';
import { geoLatColumn, geoLngColumn } from '../../query/sql/layout.js';

/** A physical row: an object by column name, or an array (raw rows) by position. */
export type RowSource = Readonly<Record<string | number, unknown>>;
/** Where a value sits in a row: a column name (object rows) or a position (array rows). */
export type RowKey = string | number;
/** Reads one schema column from a row into the record being built (nothing when NULL). */
export type ColumnDecoder = (source: RowSource, out: Record<string, Value>) => void;
/** An engine's decoder of one column: its value at `at` (GeoPoints: latitude and longitude keys). */
export type ColumnDecoderFactory = (name: string, column: ColumnSchema, at: RowKey, latAt: RowKey, lngAt: RowKey) => ColumnDecoder | null;

/** Where a layout reads the built-in columns, and the decoders of the others. */
export interface RowLayout {
  readonly objectId: RowKey;
  readonly createdAt: RowKey;
  readonly updatedAt: RowKey;
  readonly decoders: readonly ColumnDecoder[];
}

/** How a schema's rows read as arrays: the physical columns to select, in order, and their decoders. */
export interface ArrayRowLayout extends RowLayout {
  /** `physicalColumnNames(schema)`: objectId, createdAt, updatedAt, then the columns in schema order. */
  readonly names: readonly string[];
}

/**
 * The row layouts of one SQL engine, compiled once per (frozen) schema object, so rows are decoded
 * without re-reading the schema. The engine brings its column decoders (its value codecs) and the
 * physical name of a column in object rows (PostgreSQL shortens long names).
 */
export function rowLayouts(engine: string, decoderFor: ColumnDecoderFactory, physicalName: (name: string) => string = (name) => name) {
  const objectLayouts = new WeakMap<TableSchema, RowLayout>();
  const arrayLayouts = new WeakMap<TableSchema, ArrayRowLayout>();
  return {
    /** The layout of object rows (`SELECT *`, `RETURNING *`). */
    objectLayout(schema: TableSchema): RowLayout {
      let layout = objectLayouts.get(schema);
      if (!layout) {
        const decoders: ColumnDecoder[] = [];
        for (const [name, column] of Object.entries(schema.columns)) {
          const decoder = decoderFor(name, column, physicalName(name), physicalName(geoLatColumn(name)), physicalName(geoLngColumn(name)));
          if (decoder) decoders.push(decoder);
        }
        objectLayouts.set(schema, (layout = { objectId: 'objectId', createdAt: 'createdAt', updatedAt: 'updatedAt', decoders }));
      }
      return layout;
    },
    /** The layout of array rows, in `physicalColumnNames(schema)` order (what `compileFind` selects). */
    arrayLayout(schema: TableSchema): ArrayRowLayout {
      let layout = arrayLayouts.get(schema);
      if (!layout) {
        const decoders: ColumnDecoder[] = [];
        let index = 3;
        for (const [name, column] of Object.entries(schema.columns)) {
          const decoder = decoderFor(name, column, index, index, index + 1);
          index += column.type === 'Relation' ? 0 : column.type === 'GeoPoint' ? 2 : 1;
          if (decoder) decoders.push(decoder);
        }
        const names = physicalColumnNames(schema);
        if (names.length !== index) throw new Error(`[svcbase] [${engine}] row layout does not match the physical columns`);
        arrayLayouts.set(schema, (layout = { objectId: 0, createdAt: 1, updatedAt: 2, decoders, names }));
      }
      return layout;
    },
  };
}
