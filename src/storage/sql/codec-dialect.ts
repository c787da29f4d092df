import type { Value } from '../../core/values.js';
import type { DriverValues } from './column-decoders.js';

/**
 * What one SQL engine does differently when values become parameters and rows become records; the
 * rest of the row codec (row-codec.ts) is the same for every engine. SQLite: Boolean 0/1, JSON text,
 * `ACL$read` as text. PostgreSQL: boolean, jsonb bound as the value, `ACL$read` as `text[]`, U+0000
 * refused, long column names shortened in result rows.
 */
export interface CodecDialect {
  /** The engine named in configuration errors (`[svcbase] [sqlite]`). */
  readonly engine: string;
  /** Whether text and JSON values may hold U+0000 (PostgreSQL's text and jsonb cannot: 11120, D63). */
  readonly storesNul: boolean;
  /** A Boolean column's parameter. */
  booleanParam(value: boolean): unknown;
  /** A File/Array/Object column's parameter (never null: null clears the column). */
  jsonParam(value: Value): unknown;
  /** The `ACL$read` parameter for an `ACL` value (acl-read-column.ts; PostgreSQL: pg-acl-read.ts). */
  aclReadParam(acl: Value | undefined): unknown;
  /** The key a physical column has in object rows (PostgreSQL hashes names past 63 bytes, D60). */
  columnKey(name: string): string;
  /** The driver's forms of Boolean and JSON columns in result rows. */
  readonly values: DriverValues;
}
