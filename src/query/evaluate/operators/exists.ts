import type { WhereNode } from '../../plan.js';
import type { EvalContext, Predicate } from '../context.js';
import { compileGetter } from '../field.js';

/** `$exists: true` matches any value but null; `$exists: false` matches null and missing. */
export function compileExists(node: Extract<WhereNode, { kind: 'exists' }>, _ctx: EvalContext): Predicate {
  const get = compileGetter(node.field);
  return node.exists
    ? (r) => {
        const v = get(r);
        return v !== null && v !== undefined;
      }
    : (r) => {
        const v = get(r);
        return v === null || v === undefined;
      };
}
