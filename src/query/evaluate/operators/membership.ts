import type { Value } from '../../../core/values.js';
import { equalsOne } from '../../compare.js';
import type { WhereNode } from '../../plan.js';
import type { EvalContext, Predicate, ValueTest } from '../context.js';
import { anyValue, compileGetter } from '../field.js';

/** `$in` / `$nin`: equal (with the array rule) to any listed value; `$nin` is the negation. */
export function compileIn(node: Extract<WhereNode, { kind: 'in' }>, _ctx: EvalContext): Predicate {
  const get = compileGetter(node.field);
  const test = inTest(node.values);
  return node.negate ? (r) => !test(get(r)) : (r) => test(get(r));
}

/** The value test of `$in` (equal to a listed value, with the array rule; `null` matches missing). */
export function inTest(values: readonly Value[]): ValueTest {
  const primitives = new Set<Value>();
  const others: Value[] = [];
  let matchesMissing = false;
  for (const v of values) {
    if (v === null) matchesMissing = true;
    if (v === null || typeof v !== 'object') primitives.add(v);
    else others.push(v);
  }
  return anyValue((v) => {
    if (v === undefined) return matchesMissing;
    if (v === null || typeof v !== 'object') return primitives.has(v);
    for (let i = 0; i < others.length; i++) if (equalsOne(v, others[i]!)) return true;
    return false;
  });
}

/** `$all`: the field is an array holding an element equal to each listed value (never for []). */
export function compileContainsAll(node: Extract<WhereNode, { kind: 'contains_all' }>, _ctx: EvalContext): Predicate {
  const get = compileGetter(node.field);
  const test = containsAllTest(node.values);
  return (r) => test(get(r));
}

/** The value test of `$all`: an array holding an element equal to each listed value (never for []). */
export function containsAllTest(values: readonly Value[]): ValueTest {
  if (values.length === 0) return () => false;
  return (v) => {
    if (!Array.isArray(v)) return false;
    for (const wanted of values) {
      let found = false;
      for (let i = 0; i < v.length && !found; i++) found = equalsOne(v[i], wanted);
      if (!found) return false;
    }
    return true;
  };
}
