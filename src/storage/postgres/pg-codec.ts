import type { Value } from '../../core/values.js';
import { shortIdentifier } from '../../query/sql/long-identifier.js';
import type { CodecDialect } from '../sql/codec-dialect.js';
import { createRowCodec } from '../sql/row-codec.js';
import { aclReadPrincipals } from './pg-acl-read.js';

/**
 * A JSON column's parameter. The driver JSON-encodes values bound to a jsonb parameter, but types an
 * array by its first element (`[true]` would be sent as a boolean array): arrays go wrapped in an
 * object whose `toJSON` is the array, which the driver leaves untyped and encodes the same way.
 */
function jsonParam(value: Value): unknown {
  return Array.isArray(value) ? { toJSON: () => value } : value;
}

/**
 * PostgreSQL's side of the shared row codec (src/storage/sql/row-codec.ts), with the column types of
 * D44: Boolean boolean, File/Array/Object jsonb bound as the value itself, `ACL$read` a `text[]` of
 * principals (D161), U+0000 refused with 11120 (D63), long column names hashed in result rows (D60).
 * Rows come back from postgres.js with bigint as a string and jsonb parsed; both forms are accepted.
 */
export const pgCodecDialect: CodecDialect = {
  engine: 'postgres',
  storesNul: false,
  booleanParam: (value) => value,
  jsonParam,
  aclReadParam: aclReadPrincipals,
  columnKey: (name) => shortIdentifier(name, 63),
  values: {
    boolean: (raw) => raw === true || raw === 't' || raw === 1,
    // Parsed by the driver, or its text when the client parses no jsonb.
    json: (raw) => (typeof raw === 'string' ? (JSON.parse(raw) as Value) : (raw as Value)),
  },
};

/** The PostgreSQL row codec. */
export const pgCodec = createRowCodec(pgCodecDialect);
