import type { WhereNode } from '../../plan.js';
import { compileSafeRegex } from '../../regex/safe-regex.js';
import type { EvalContext, Predicate } from '../context.js';
import { anyValue, compileGetter } from '../field.js';

/** `$regex`: a string value (or string array element) the pattern matches somewhere in. */
export function compileRegex(node: Extract<WhereNode, { kind: 'regex' }>, _ctx: EvalContext): Predicate {
  const get = compileGetter(node.field);
  const regex = compileSafeRegex(node.pattern, node.flags, node.field.column);
  const test = anyValue((v) => typeof v === 'string' && regex.test(v));
  return (r) => test(get(r));
}
