import type { StoredRecord, Value } from '../core/values.js';
import { type Getter, compileGetter } from '../query/evaluate/field.js';
import type { FieldRef, WhereNode } from '../query/plan.js';

/** A listed value the index can look up as it is: what `$in` compares with a Set (SameValueZero). */
type Key = string | number | boolean;

/** A `$in` a where cannot match without: its field and its listed values (all {@link Key}s). */
export interface MembershipGuard {
  readonly field: FieldRef;
  readonly values: readonly Key[];
}

const isKey = (value: Value): value is Key => typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';

/**
 * The `$in` a where requires (itself, or a conjunct of its top-level `$and`s), when every listed
 * value is a string, number or boolean: a record none of whose field values is listed there cannot
 * match (the evaluator's `$in` compares such values with a Set, and neither `null` nor an object is
 * listed, so a missing field or an object never matches). Of several, the shortest list. Null for
 * any other where (`$nin`, `$or`, a listed null or object).
 */
export function membershipGuard(node: WhereNode): MembershipGuard | null {
  if (node.kind === 'in') return !node.negate && node.values.every(isKey) ? { field: node.field, values: node.values as readonly Key[] } : null;
  if (node.kind !== 'and') return null;
  let best: MembershipGuard | null = null;
  for (const child of node.nodes) {
    const guard = membershipGuard(child);
    if (guard && (!best || guard.values.length < best.values.length)) best = guard;
  }
  return best;
}

interface IndexedField<W> {
  readonly get: Getter;
  /** Listed value -> the wheres listing it (one where alone, the common case, is held without an array). */
  readonly byValue: Map<Key, W | W[]>;
  wheres: number;
}

/**
 * The guards ({@link membershipGuard}) of a table's wheres, indexed by listed value, so a record is
 * screened against every guarded where at once: one lookup per value of the record's guarded fields
 * (a 1000-value array against 200 wheres listing 900 values each is 1000 lookups, not 200 x 1000).
 * A guarded where the record does not hit cannot match it; unguarded wheres are never ruled out.
 * The hits of the last two records screened (a change's before and after) are kept until a where is
 * added or removed.
 */
export class MembershipIndex<W extends object> {
  private readonly fields = new Map<string, IndexedField<W>>();
  private readonly guarded = new Map<W, { readonly fieldKey: string; readonly values: readonly Key[] }>();
  private last: { readonly record: StoredRecord; readonly hits: ReadonlySet<W> } | undefined;
  private prior: { readonly record: StoredRecord; readonly hits: ReadonlySet<W> } | undefined;

  /** Indexes `where` under `guard` (replacing what it was indexed under); a null guard leaves it unindexed. */
  set(where: W, guard: MembershipGuard | null): void {
    this.remove(where);
    if (!guard) return;
    const fieldKey = JSON.stringify([guard.field.column, ...guard.field.path]);
    let field = this.fields.get(fieldKey);
    if (!field) this.fields.set(fieldKey, (field = { get: compileGetter(guard.field), byValue: new Map(), wheres: 0 }));
    field.wheres++;
    // The parsed where's own list is kept (no copy); a value it lists twice is entered once.
    const { values } = guard;
    for (const value of values) {
      const held = field.byValue.get(value);
      if (held === undefined) field.byValue.set(value, where);
      else if (Array.isArray(held)) {
        if (held[held.length - 1] !== where) held.push(where);
      } else if (held !== where) field.byValue.set(value, [held, where]);
    }
    this.guarded.set(where, { fieldKey, values });
  }

  remove(where: W): void {
    const entry = this.guarded.get(where);
    this.forget();
    if (!entry) return;
    this.guarded.delete(where);
    const field = this.fields.get(entry.fieldKey)!;
    for (const value of entry.values) {
      const held = field.byValue.get(value);
      if (held === where) field.byValue.delete(value);
      else if (Array.isArray(held)) {
        const at = held.indexOf(where);
        if (at < 0) continue;
        held.splice(at, 1);
        if (held.length === 1) field.byValue.set(value, held[0]!);
      }
    }
    if (--field.wheres === 0) this.fields.delete(entry.fieldKey);
  }

  /** False when `where` is guarded and `record` holds none of its guard's values (it cannot match); true otherwise. */
  mayMatch(where: W, record: StoredRecord): boolean {
    return !this.guarded.has(where) || this.hitsOf(record).has(where);
  }

  /** Guarded wheres (for tests and usage figures). */
  get size(): number {
    return this.guarded.size;
  }

  private hitsOf(record: StoredRecord): ReadonlySet<W> {
    if (this.last?.record === record) return this.last.hits;
    if (this.prior?.record === record) return this.prior.hits;
    const hits = new Set<W>();
    for (const field of this.fields.values()) {
      const value = field.get(record);
      // The evaluator's `$in` tests the value, and each element of an array value.
      if (Array.isArray(value)) for (let i = 0; i < value.length; i++) hit(field, value[i], hits);
      else hit(field, value, hits);
    }
    this.prior = this.last;
    this.last = { record, hits };
    return hits;
  }

  private forget(): void {
    this.last = this.prior = undefined;
  }
}

function hit<W>(field: IndexedField<W>, value: Value | undefined, hits: Set<W>): void {
  if (value === undefined || !isKey(value)) return;
  const held = field.byValue.get(value);
  if (held === undefined) return;
  if (Array.isArray(held)) for (const where of held) hits.add(where);
  else hits.add(held);
}
