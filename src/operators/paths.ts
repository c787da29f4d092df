import { svcError } from '../core/errors.js';
import { FORBIDDEN_KEYS } from '../core/names.js';

/** A sub-key of an Object column or an index into an Array column (`address.city`, `items.0.name`). */
const SEGMENT = /^[A-Za-z0-9_][A-Za-z0-9_-]{0,127}$/;
const INDEX = /^(0|[1-9][0-9]{0,5})$/;

/** Deepest dot-key path accepted (`a.b.c...`), counting the column. */
export const MAX_PATH_DEPTH = 16;

/** Whether a path segment addresses an array element. */
export function isIndexSegment(segment: string): boolean {
  return INDEX.test(segment);
}

/**
 * Splits a dot key (`address.city`) into its column and path. Throws 105 for an empty, forbidden
 * (`__proto__`, `constructor`, `prototype`) or malformed segment, or a path deeper than
 * {@link MAX_PATH_DEPTH}. The column itself is validated by the caller.
 */
export function splitDotKey(key: string): { column: string; path: string[] } {
  const parts = key.split('.');
  if (parts.length > MAX_PATH_DEPTH) throw svcError('invalidFieldName', key);
  const [column = '', ...path] = parts;
  for (const segment of path) {
    if (FORBIDDEN_KEYS.has(segment)) throw svcError('forbiddenKey', segment);
    if (!SEGMENT.test(segment)) throw svcError('invalidFieldName', key);
  }
  return { column, path };
}
