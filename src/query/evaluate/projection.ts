import type { StoredRecord, Value } from '../../core/values.js';
import type { Projection } from '../plan.js';

const ALWAYS = ['objectId', 'createdAt', 'updatedAt'] as const;

/**
 * Applies `keys`: `include` keeps objectId, createdAt, updatedAt and the listed columns present in
 * the record; `exclude` drops the listed columns. `all` returns the record itself (not a copy).
 * Adapters that decode SQL rows call this too.
 */
export function applyProjection(record: StoredRecord, projection: Projection): StoredRecord {
  if (projection.kind === 'all') return record;
  const out: Record<string, Value> = {};
  if (projection.kind === 'include') {
    for (const k of ALWAYS) out[k] = record[k];
    for (const c of projection.columns) if (Object.hasOwn(record, c)) out[c] = record[c]!;
    return out as StoredRecord;
  }
  const drop = new Set(projection.columns);
  for (const [k, v] of Object.entries(record)) if (!drop.has(k)) out[k] = v;
  return out as StoredRecord;
}
