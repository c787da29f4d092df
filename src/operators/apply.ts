import { svcError } from '../core/errors.js';
import type { ObjectValue, Value } from '../core/values.js';
import { isPlainObject, typeOfValue, valuesEqual } from '../core/values.js';
import type { FieldOp } from './field-op.js';
import { isIndexSegment } from './paths.js';
import { copyOf } from '../core/copy.js';

type ValueOp = Exclude<FieldOp, { kind: 'add_relation' | 'remove_relation' }>;

/**
 * Applies field operations to a record: the one semantics of every adapter (the memory adapter
 * uses it for every update, the SQL adapters for array operations and dot-key paths). Pure: the input
 * is not mutated; the result may share unchanged sub-values with the input and with the operations.
 *
 * - `set` of a top-level column to null and `unset` remove the column (null and missing are the same).
 * - `increment` starts a missing value at 0; a non-number value is a 111.
 * - `add` appends; `add_unique` appends values not yet present (compared with `valuesEqual`, also
 *   among the added values); `remove` drops every element equal to one of `objects`. A missing value
 *   is an empty array; a non-array value is a 111.
 * - Paths create missing intermediate objects; stepping into a scalar or typed value is a 111; an
 *   index step must address an existing array element.
 * - Relation operations are ignored here: adapters keep relation membership apart from the record.
 *
 * @example applyOps({ n: 1 }, [{ kind: 'increment', column: 'n', path: [], amount: 2 }]) // { n: 3 }
 */
export function applyOps<R extends ObjectValue>(record: R, ops: readonly FieldOp[]): R {
  const out: Record<string, Value> = copyOf(record);
  for (const op of ops) {
    if (op.kind === 'add_relation' || op.kind === 'remove_relation') continue;
    const current = Object.hasOwn(out, op.column) ? out[op.column] : undefined;
    const next = op.path.length === 0 ? applyAt(current, op, op.column) : updateIn(current, op.path, 0, op, op.column);
    if (next === undefined || next === null) delete out[op.column];
    else out[op.column] = next;
  }
  return out as R;
}

/** Whether applying `ops` needs the record's current value (anything but top-level set/unset/increment). */
export function needsReadModifyWrite(ops: readonly FieldOp[]): boolean {
  return ops.some((op) => 'path' in op && (op.path.length > 0 || (op.kind !== 'set' && op.kind !== 'unset' && op.kind !== 'increment')));
}

function applyAt(current: Value | undefined, op: ValueOp, key: string): Value | undefined {
  switch (op.kind) {
    case 'set':
      return op.value;
    case 'unset':
      return undefined;
    case 'increment':
      if (current === undefined || current === null) return op.amount;
      if (typeof current !== 'number') throw mismatch(key, 'Number', current);
      return finiteSum(current + op.amount, key);
    case 'add':
      return [...arrayOf(current, key), ...op.objects];
    case 'add_unique': {
      const result = [...arrayOf(current, key)];
      for (const item of op.objects) if (!result.some((v) => valuesEqual(v, item))) result.push(item);
      return result;
    }
    case 'remove': {
      const existing = arrayOf(current, key);
      return existing.filter((v) => !op.objects.some((item) => valuesEqual(v, item)));
    }
  }
}

function arrayOf(current: Value | undefined, key: string): readonly Value[] {
  if (current === undefined || current === null) return [];
  if (!Array.isArray(current)) throw mismatch(key, 'Array', current);
  return current;
}

/** Copies the containers along `path` and applies `op` at its end. */
function updateIn(container: Value | undefined, path: readonly string[], depth: number, op: ValueOp, key: string): Value | undefined {
  const segment = path[depth]!;
  const last = depth === path.length - 1;
  const where = `${key}.${path.slice(0, depth + 1).join('.')}`;
  if (Array.isArray(container)) {
    const index = isIndexSegment(segment) ? Number(segment) : -1;
    if (index < 0 || index >= container.length) throw svcError('invalidParameter', `${where}: no array element at this index`);
    const copy = [...(container as Value[])];
    const child = copy[index];
    const next = last ? applyAt(child, op, where) : updateIn(child, path, depth + 1, op, key);
    copy[index] = next === undefined ? null : next;
    return copy;
  }
  if (container !== undefined && container !== null && !isPlainObject(container)) {
    throw mismatch(`${key}.${path.slice(0, depth).join('.')}`.replace(/\.$/, ''), 'Object', container);
  }
  const copy: Record<string, Value> = copyOf((container as ObjectValue | null | undefined) ?? {});
  const child = Object.hasOwn(copy, segment) ? copy[segment] : undefined;
  const next = last ? applyAt(child, op, where) : updateIn(child, path, depth + 1, op, key);
  if (next === undefined) delete copy[segment];
  else copy[segment] = next;
  return copy;
}

/** A sum past the double range is refused as a non-finite number would be on the wire (111). */
function finiteSum(sum: number, key: string): number {
  if (!Number.isFinite(sum)) throw svcError('typeMismatch', key, 'Number', 'non-finite');
  return sum;
}

function mismatch(key: string, expected: string, got: Value): Error {
  return svcError('typeMismatch', key, expected, typeOfValue(got) ?? 'null');
}
