import type { Value } from '../../core/values.js';
import { aclReadText } from '../../query/sql/acl-read-column.js';
import type { CodecDialect } from '../sql/codec-dialect.js';
import { createRowCodec } from '../sql/row-codec.js';

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

/**
 * SQLite's side of the shared row codec (src/storage/sql/row-codec.ts): Boolean INTEGER 0/1 (read
 * back as 0/1 or 0n/1n), File/Array/Object JSON text, `ACL$read` the text of acl-read-column.ts;
 * U+0000 is stored as is, column names are row keys as they are.
 */
export const sqliteCodecDialect: CodecDialect = {
  engine: 'sqlite',
  storesNul: true,
  booleanParam: (value) => (value ? 1 : 0),
  jsonParam: (value) => JSON.stringify(value),
  aclReadParam: aclReadText,
  columnKey: (name) => name,
  values: { boolean: (raw) => raw === 1 || raw === 1n || raw === true, json: parseJson },
};

/** The SQLite row codec. Array rows (`statement.raw(true)`) build in about half the time of object rows. */
export const sqliteCodec = createRowCodec(sqliteCodecDialect);
export const { encodeColumn, encodeRecord, decodeRow, arrayLayout, decodeValues } = sqliteCodec;
