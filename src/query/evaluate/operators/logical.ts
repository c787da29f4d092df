import type { WhereNode } from '../../plan.js';
import type { EvalContext, Predicate } from '../context.js';
import { compilePredicate } from '../where.js';

/** The empty where. */
export function compileAllRecords(_node: Extract<WhereNode, { kind: 'all_records' }>, _ctx: EvalContext): Predicate {
  return () => true;
}

/** Every sub-condition holds. */
export function compileAnd(node: Extract<WhereNode, { kind: 'and' }>, ctx: EvalContext): Predicate {
  const preds = node.nodes.map((n) => compilePredicate(n, ctx));
  if (preds.length === 2) {
    const [a, b] = preds as [Predicate, Predicate];
    return (r) => a(r) && b(r);
  }
  return (r) => {
    for (let i = 0; i < preds.length; i++) if (!preds[i]!(r)) return false;
    return true;
  };
}

/** At least one sub-condition holds. */
export function compileOr(node: Extract<WhereNode, { kind: 'or' }>, ctx: EvalContext): Predicate {
  const preds = node.nodes.map((n) => compilePredicate(n, ctx));
  if (preds.length === 2) {
    const [a, b] = preds as [Predicate, Predicate];
    return (r) => a(r) || b(r);
  }
  return (r) => {
    for (let i = 0; i < preds.length; i++) if (preds[i]!(r)) return true;
    return false;
  };
}
