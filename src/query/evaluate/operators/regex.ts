import type { WhereNode } from '../../plan.js';
import { compileSafeRegex, type SafeRegex } from '../../regex/safe-regex.js';
import type { EvalContext, Predicate, ValueTest } from '../context.js';
import { anyValue, compileGetter } from '../field.js';

/** `$regex`: a string value (or string array element) the pattern matches somewhere in. */
export function compileRegex(node: Extract<WhereNode, { kind: 'regex' }>, _ctx: EvalContext): Predicate {
  const get = compileGetter(node.field);
  const test = regexTest(node);
  return (r) => test(get(r));
}

/** The value test of `$regex`: a string (or string array element) the pattern matches somewhere in. */
export function regexTest(node: Extract<WhereNode, { kind: 'regex' }>): ValueTest {
  const regex = regexOf(node);
  return anyValue((v) => typeof v === 'string' && regex.test(v));
}

/** The node's matcher (compiled once per pattern and flags, then cached; see safe-regex.ts). */
export function regexOf(node: Extract<WhereNode, { kind: 'regex' }>): SafeRegex {
  return compileSafeRegex(node.pattern, node.flags, node.field.column);
}
