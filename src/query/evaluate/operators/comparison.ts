import type { PointerValue, Value } from '../../../core/values.js';
import { compareSameType, equalsOne } from '../../compare.js';
import type { CompareOp, WhereNode } from '../../plan.js';
import { schemaColumn } from '../../schema-lookup.js';
import type { EvalContext, Predicate, ValueTest } from '../context.js';
import { anyValue, compileGetter, inheritsName } from '../field.js';

type CompareNode = Extract<WhereNode, { kind: 'compare' }>;

/**
 * Equality with the array rule: a field equals `value` when it is equal itself or holds an equal
 * element. `null` equals a missing field.
 */
export function equalsTest(value: Value): ValueTest {
  if (value === null || typeof value !== 'object') {
    if (value === null) return (v) => v === null || v === undefined || (Array.isArray(v) && v.includes(null));
    return (v) => v === value || (Array.isArray(v) && v.includes(value));
  }
  return anyValue((v) => equalsOne(v, value));
}

const ORDER_TESTS: Readonly<Record<Exclude<CompareOp, 'eq' | 'ne'>, (c: number) => boolean>> = {
  lt: (c) => c < 0,
  lte: (c) => c <= 0,
  gt: (c) => c > 0,
  gte: (c) => c >= 0,
};

const NUMBER_TESTS: Readonly<Partial<Record<CompareOp, (v: number, bound: number) => boolean>>> = {
  lt: (v, b) => v < b,
  lte: (v, b) => v <= b,
  gt: (v, b) => v > b,
  gte: (v, b) => v >= b,
};

/** `$lt`/`$lte`/`$gt`/`$gte`: only values of the operand's type (or such array elements) match. */
export function orderTest(op: Exclude<CompareOp, 'eq' | 'ne'>, value: Value): ValueTest {
  const accept = ORDER_TESTS[op];
  if (typeof value === 'number') {
    const one: ValueTest = (v) => typeof v === 'number' && accept(v - value);
    return anyValue(one);
  }
  return anyValue((v) => {
    const c = compareSameType(v, value);
    return c !== null && accept(c);
  });
}

/** `compare` nodes: eq, ne (its negation: matches null and missing), lt, lte, gt, gte. */
export function compileCompare(node: CompareNode, ctx: EvalContext): Predicate {
  const column = node.field.path.length === 0 ? schemaColumn(ctx.schema, node.field.column) : undefined;
  if (column?.type === 'Relation') return relationCompare(node, ctx, column.targetClass);
  const get = compileGetter(node.field);
  const value = node.value;
  if (node.field.path.length === 0 && value !== null && typeof value !== 'object') {
    // Hot path: a top-level column against a string, number or boolean, inlined (no getter call).
    const column = node.field.column;
    // One closure per operator: the per-record test stays a single expression.
    if (node.op === 'eq') {
      return (r) => {
        const v = (r as Readonly<Record<string, Value>>)[column];
        return v === value || (Array.isArray(v) && v.includes(value));
      };
    }
    if (node.op === 'ne') {
      return (r) => {
        const v = (r as Readonly<Record<string, Value>>)[column];
        return !(v === value || (Array.isArray(v) && v.includes(value)));
      };
    }
  }
  if (node.field.path.length === 0 && typeof value === 'number' && !inheritsName(node.field.column)) {
    // Hot path: a top-level column ordered against a number, read inline; arrays keep the array rule.
    const column = node.field.column;
    const accept = NUMBER_TESTS[node.op as Exclude<CompareOp, 'eq' | 'ne'>];
    if (accept) {
      const elementTest = orderTest(node.op as Exclude<CompareOp, 'eq' | 'ne'>, value);
      return (r) => {
        const v = (r as Readonly<Record<string, Value>>)[column];
        if (typeof v === 'number') return accept(v, value);
        return Array.isArray(v) && elementTest(v);
      };
    }
  }
  if (node.op === 'eq' || node.op === 'ne') {
    const test = equalsTest(node.value);
    return node.op === 'eq' ? (r) => test(get(r)) : (r) => !test(get(r));
  }
  const test = orderTest(node.op, node.value);
  return (r) => test(get(r));
}

/** A Pointer compared with a Relation column: membership of the related ids. */
function relationCompare(node: CompareNode, ctx: EvalContext, targetClass: string | undefined): Predicate {
  const pointer = node.value as PointerValue;
  const negate = node.op === 'ne';
  if (pointer.className !== targetClass) return () => negate;
  const { env, className } = ctx;
  const column = node.field.column;
  return (r) => env.relationMembers(className, r.objectId, column).has(pointer.objectId) !== negate;
}
