import type { RealtimeChange } from './change.js';

const computed = new WeakMap<RealtimeChange, ReadonlySet<string>>();

/**
 * The columns an update changed: those whose value differs between its before and after (deep, as
 * stored JSON; -0 and 0 count as different). A where that names none of them matches the record
 * after exactly as before, so it is evaluated once. Null for a create or a delete. Computed once per
 * change however many subscriptions ask.
 */
export function changedColumns(change: RealtimeChange): ReadonlySet<string> | null {
  const { before, after } = change;
  if (change.op !== 'update' || !before || !after) return null;
  let changed = computed.get(change);
  if (changed) return changed;
  const columns = new Set<string>();
  for (const column of Object.keys(after)) if (!Object.hasOwn(before, column) || !sameJson(before[column], after[column])) columns.add(column);
  for (const column of Object.keys(before)) if (!Object.hasOwn(after, column)) columns.add(column);
  computed.set(change, (changed = columns));
  return changed;
}

function sameJson(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const key of keys) if (!Object.hasOwn(b, key) || !sameJson((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key])) return false;
  return true;
}
