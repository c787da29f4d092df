import type { ObjectValue, Value } from '../../core/values.js';

/**
 * Deep copy of a value of the internal model (JSON-shaped: no cycles, no class instances). Faster
 * than `structuredClone` for the small objects records are made of.
 */
export function cloneValue<T extends Value>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v: Value) => cloneValue(v)) as unknown as T;
  const out: Record<string, Value> = {};
  for (const key of Object.keys(value)) out[key] = cloneValue((value as ObjectValue)[key] as Value);
  return out as T;
}

/** Deep copy of a record without its null-valued top-level columns (null and missing are the same). */
export function cloneRecord<T extends ObjectValue>(record: T): T {
  const out: Record<string, Value> = {};
  for (const key of Object.keys(record)) {
    const v = record[key];
    if (v !== null && v !== undefined) out[key] = cloneValue(v);
  }
  return out as T;
}
