import { configError } from '../../core/errors.js';
import { isoOfMs } from '../../core/time.js';
import type { StoredRecord, Value } from '../../core/values.js';
import { dateMs } from '../../core/values.js';
import type { ColumnSchema, TableSchema } from '../../query/plan.js';
import type { ColumnDecoder, ColumnDecoderFactory, RowKey, RowLayout, RowSource } from './row-layout.js';

/** How one driver hands back the values that differ between engines. */
export interface DriverValues {
  /** A Boolean column's raw value (SQLite: 0/1 or 0n/1n; PostgreSQL: true/false, or 't'/'f' as text). */
  boolean(raw: unknown): boolean;
  /** A File/Array/Object column's raw value (SQLite: JSON text; PostgreSQL: parsed jsonb, or its text). */
  json(raw: unknown): Value;
}

/**
 * The column decoders of one SQL engine (layout.ts): String and Pointer text, Number, Date epoch
 * milliseconds (a number, or a bigint's text), GeoPoint two number columns, JSON columns and
 * Booleans through the driver's own forms. NULL leaves the column out (null and missing are the same).
 */
export function columnDecoders(driver: DriverValues): ColumnDecoderFactory {
  return (name: string, column: ColumnSchema, at: RowKey, latAt: RowKey, lngAt: RowKey): ColumnDecoder | null => {
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
          if (typeof raw === 'string') out[name] = raw;
          else if (raw !== null && raw !== undefined) out[name] = String(raw);
        };
      case 'Number':
        return (source, out) => {
          const raw = source[at];
          if (typeof raw === 'number') out[name] = raw;
          else if (raw !== null && raw !== undefined) out[name] = Number(raw);
        };
      case 'Boolean':
        return (source, out) => {
          const raw = source[at];
          if (raw !== null && raw !== undefined) out[name] = driver.boolean(raw);
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
          if (raw !== null && raw !== undefined) out[name] = driver.json(raw);
        };
    }
  };
}

/** A row (object or array) back to a record through a compiled layout. */
export function decodeRowWith(layout: RowLayout, source: RowSource): StoredRecord {
  const createdMs = Number(source[layout.createdAt]);
  const updatedMs = Number(source[layout.updatedAt]);
  const createdIso = isoOfMs(createdMs);
  const out: Record<string, Value> = {
    objectId: String(source[layout.objectId]),
    createdAt: { __type: 'Date', iso: createdIso },
    updatedAt: { __type: 'Date', iso: updatedMs === createdMs ? createdIso : isoOfMs(updatedMs) },
  };
  const decoders = layout.decoders;
  for (let i = 0; i < decoders.length; i++) decoders[i]!(source, out);
  return out as StoredRecord;
}

/**
 * Every physical column of a record for an INSERT, built-in columns first, each column through the
 * engine's encoder. A column missing from the schema is a configuration error (ensureColumns first).
 */
export function encodeRecordWith<P>(
  engine: string,
  schema: TableSchema,
  record: StoredRecord,
  encodeColumn: (name: string, column: ColumnSchema, value: Value | undefined) => Array<readonly [string, P]>,
): Array<readonly [string, P | string | number]> {
  const out: Array<readonly [string, P | string | number]> = [
    ['objectId', record.objectId],
    ['createdAt', dateMs(record.createdAt)],
    ['updatedAt', dateMs(record.updatedAt)],
  ];
  for (const key of Object.keys(record)) {
    if (key === 'objectId' || key === 'createdAt' || key === 'updatedAt') continue;
    const column = Object.hasOwn(schema.columns, key) ? schema.columns[key] : undefined;
    if (!column) throw configError(engine, `column '${key}' is not in the schema of ${schema.className}: call ensureColumns first`);
    out.push(...encodeColumn(key, column, record[key]));
  }
  return out;
}
