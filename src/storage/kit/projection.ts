import type { StoredRecord, Value } from '../../core/values.js';
import type { Projection } from '../../query/plan.js';

const ALWAYS = new Set(['objectId', 'createdAt', 'updatedAt']);

/**
 * Keeps the columns a projection asks for; `objectId`, `createdAt` and `updatedAt` are always kept.
 * Returns the record itself for `{ kind: 'all' }`.
 */
export function projectRecord(record: StoredRecord, projection: Projection | undefined): StoredRecord {
  if (!projection || projection.kind === 'all') return record;
  const listed = new Set(projection.columns);
  const keep = projection.kind === 'include' ? (k: string) => listed.has(k) : (k: string) => !listed.has(k);
  const out: Record<string, Value> = {};
  for (const key of Object.keys(record)) {
    if (ALWAYS.has(key) || keep(key)) out[key] = record[key] as Value;
  }
  return out as StoredRecord;
}
