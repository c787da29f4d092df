import type { StoredRecord, Value } from '../../core/values.js';
import { valuesEqual } from '../../core/values.js';
import type { IndexSpec, TableSchema } from '../../query/plan.js';

/**
 * The unique index of `schema` that `record` would violate among `records`, or null. Like SQL, a
 * record with a null or missing value in an indexed column never conflicts.
 */
export function violatedUniqueIndex(schema: TableSchema, records: Iterable<StoredRecord>, record: StoredRecord): IndexSpec | null {
  const unique = schema.indexes.filter((index) => index.unique && index.columns.every((c) => record[c] !== undefined && record[c] !== null));
  if (unique.length === 0) return null;
  for (const other of records) {
    if (other.objectId === record.objectId) continue;
    const violated = unique.find((index) => index.columns.every((c) => valuesEqual(other[c] as Value | undefined, record[c] as Value)));
    if (violated) return violated;
  }
  return null;
}

/** Whether existing records already hold duplicates for a unique index. */
export function hasDuplicates(records: Iterable<StoredRecord>, index: IndexSpec): boolean {
  const seen: Array<readonly Value[]> = [];
  for (const record of records) {
    const values = index.columns.map((c) => (record[c] as Value | undefined) ?? null);
    if (values.some((v) => v === null)) continue;
    if (seen.some((s) => s.every((v, i) => valuesEqual(v, values[i])))) return true;
    seen.push(values);
  }
  return false;
}

/** Whether `schema` has a unique index `record` could violate (every indexed column set). */
export function mayViolateUnique(schema: TableSchema, record: StoredRecord): boolean {
  return schema.indexes.some((index) => index.unique && index.columns.every((c) => record[c] !== undefined && record[c] !== null));
}
