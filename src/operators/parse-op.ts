import { svcError } from '../core/errors.js';
import type { Value } from '../core/values.js';
import { type Json, decodePointer, decodeValue } from '../core/wire-values.js';
import type { JsonObject as WireObject } from '../core/wire-values.js';
import type { ColumnSchema } from '../query/plan.js';
import type { FieldOp } from './field-op.js';

/** Wire names of the field operations (`{"__op": "Increment", ...}`). */
export const WIRE_OPS = ['Increment', 'Add', 'AddUnique', 'Remove', 'Delete', 'AddRelation', 'RemoveRelation'] as const;
export type WireOp = (typeof WIRE_OPS)[number];

type JsonObject = Readonly<WireObject>;

/** One parsed `__op`: the operation (null for a no-op such as an empty AddRelation) and the column type it implies. */
export interface ParsedOp {
  readonly op: FieldOp | null;
  /** Column type the operation needs (null: any type, e.g. Delete). */
  readonly implies: ColumnSchema | null;
}

type OpParser = (json: JsonObject, column: string, path: readonly string[], key: string, timeZone: string) => ParsedOp;

const ARRAY: ColumnSchema = { type: 'Array' };

/** One parser per wire operation: adding an operation fails to compile until it is handled here. */
const PARSERS: Record<WireOp, OpParser> = {
  Increment(json, column, path, key) {
    const amount = json.amount === undefined ? 1 : json.amount;
    if (typeof amount !== 'number' || !Number.isFinite(amount)) {
      throw svcError('invalidOp', `${key}: Increment needs a finite number amount`);
    }
    return { op: { kind: 'increment', column, path, amount }, implies: path.length === 0 ? { type: 'Number' } : null };
  },
  Add: (json, column, path, key, tz) => arrayOp('add', json, column, path, key, tz),
  AddUnique: (json, column, path, key, tz) => arrayOp('add_unique', json, column, path, key, tz),
  Remove: (json, column, path, key, tz) => arrayOp('remove', json, column, path, key, tz),
  Delete: (_json, column, path) => ({ op: { kind: 'unset', column, path }, implies: null }),
  AddRelation: (json, column, path, key) => relationOp('add_relation', json, column, path, key),
  RemoveRelation: (json, column, path, key) => relationOp('remove_relation', json, column, path, key),
};

/**
 * Parses a field-operation object (`{"__op": "Increment", "amount": 2}`) aimed at `column` (and a
 * dot-key `path` inside it). Throws 107 for an unknown or malformed operation, 106 for a relation
 * member that is not a Pointer, and the value codes of {@link decodeValue} for bad array elements.
 */
export function parseFieldOp(json: JsonObject, column: string, path: readonly string[], key: string, timeZone: string): ParsedOp {
  const name = json.__op;
  if (typeof name !== 'string' || !Object.hasOwn(PARSERS, name)) {
    throw svcError('invalidOp', `${key}: ${typeof name === 'string' ? name : JSON.stringify(name)}`);
  }
  return PARSERS[name as WireOp](json, column, path, key, timeZone);
}

function objectsOf(json: JsonObject, key: string): readonly Json[] {
  const objects = json.objects;
  if (!Array.isArray(objects)) throw svcError('invalidOp', `${key}: ${String(json.__op)} needs an objects array`);
  return objects;
}

function arrayOp(
  kind: 'add' | 'add_unique' | 'remove',
  json: JsonObject,
  column: string,
  path: readonly string[],
  key: string,
  timeZone: string,
): ParsedOp {
  const objects: Value[] = objectsOf(json, key).map((item, i) => decodeValue(item, `${key}.${i}`, timeZone));
  return { op: { kind, column, path, objects }, implies: path.length === 0 ? ARRAY : null };
}

function relationOp(
  kind: 'add_relation' | 'remove_relation',
  json: JsonObject,
  column: string,
  path: readonly string[],
  key: string,
): ParsedOp {
  if (path.length > 0) throw svcError('invalidOp', `${key}: relation operations apply to a whole column`);
  const ids = new Set<string>();
  let targetClass: string | undefined;
  for (const [i, item] of objectsOf(json, key).entries()) {
    if (typeof item !== 'object' || item === null || Array.isArray(item) || item.__type !== 'Pointer') {
      throw svcError('invalidPointer', `${key}.${i}`);
    }
    const pointer = decodePointer(item, `${key}.${i}`);
    if (targetClass !== undefined && pointer.className !== targetClass) {
      throw svcError('invalidOp', `${key}: relation members must all be of one class`);
    }
    targetClass = pointer.className;
    ids.add(pointer.objectId);
  }
  if (targetClass === undefined) return { op: null, implies: null };
  return { op: { kind, column, targetClass, ids: [...ids] }, implies: { type: 'Relation', targetClass } };
}
