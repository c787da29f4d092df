import type { Value } from '../core/values.js';
import type { FindPlan, WhereNode } from './plan.js';

/** `column = value` on a top-level column. */
export function whereEquals(column: string, value: Value): WhereNode {
  return { kind: 'compare', field: { column, path: [] }, op: 'eq', value };
}

/** A find plan over `where` with no ordering beyond the default, returning every column. */
export function findPlan(where: WhereNode, limit: number): FindPlan {
  return { where, order: [], skip: 0, limit, projection: { kind: 'all' } };
}
