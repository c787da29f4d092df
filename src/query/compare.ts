import type { DateValue, Value } from '../core/values.js';
import { valuesEqual } from '../core/values.js';

/**
 * Comparison helpers shared by the in-memory evaluator and the statistics engine: the one place
 * where "same type", "equal" and "ordered before" are defined. The SQL compilers reproduce exactly
 * these rules (see docs/querying.md, "Pinned semantics").
 */

/**
 * Orders strings by Unicode code point, which is the byte order of their UTF-8 encoding and so the
 * order of SQLite's BINARY collation (and PostgreSQL's `COLLATE "C"`). Plain `<` on JS strings
 * compares UTF-16 code units, which puts U+E000..U+FFFF after astral characters; this does not.
 */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = a.length < b.length ? a.length : b.length;
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x !== y) {
      if (x >= 0xd800 && y >= 0xd800) {
        // Surrogates (0xD800-0xDFFF) encode code points above 0xFFFF: move them after 0xE000-0xFFFF.
        x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
        y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
      }
      return x - y;
    }
  }
  return a.length - b.length;
}

/** True for `null` and `undefined`: the query language treats a missing field and `null` alike. */
export function isNullish(v: Value | undefined): v is null | undefined {
  return v === null || v === undefined;
}

function isDateValue(v: Value): v is DateValue {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && (v as { __type?: unknown }).__type === 'Date';
}

/**
 * Compares two values of the same orderable type (number/number, string/string, Date/Date).
 * Returns `null` when the types differ or are not orderable: such pairs never satisfy `$lt`,
 * `$gt`, ... . Dates compare by their canonical ISO text, which orders like the instant.
 */
export function compareSameType(a: Value | undefined, b: Value): number | null {
  if (typeof a === 'number') return typeof b === 'number' ? a - b : null;
  if (typeof a === 'string') return typeof b === 'string' ? compareStrings(a, b) : null;
  if (a !== undefined && a !== null && isDateValue(a as Value) && isDateValue(b)) {
    return compareStrings((a as DateValue).iso, b.iso);
  }
  return null;
}

/**
 * Equality of one value (no array unwinding): null equals missing, typed values compare by
 * identity (Pointer by class and id, Date by instant, GeoPoint by coordinates, File by url),
 * arrays and objects deeply.
 */
export function equalsOne(a: Value | undefined, b: Value): boolean {
  if (b === null) return a === null || a === undefined;
  if (typeof b !== 'object') return a === b;
  return valuesEqual(a, b);
}

/**
 * A sort key: what an orderable value contributes to ordering. `null` sorts first ascending;
 * numbers before strings (a mix never occurs in a typed column, but the order stays total).
 */
export type SortKey = number | string | null;

/** The sort key of a value in a sortable column (number, string, Date); anything else is `null`. */
export function sortKeyOf(v: Value | undefined): SortKey {
  if (typeof v === 'number' || typeof v === 'string') return v;
  if (v !== undefined && v !== null && isDateValue(v)) return v.iso;
  return null;
}

/** Total order of sort keys: null first, then numbers, then strings (code point order). */
export function compareSortKeys(a: SortKey, b: SortKey): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  if (typeof a === 'number') return typeof b === 'number' ? (a < b ? -1 : a > b ? 1 : 0) : -1;
  return typeof b === 'number' ? 1 : compareStrings(a, b);
}
