import type { StoredRecord, Value } from '../../core/values.js';
import type { AggregatePlan, FindPlan, WhereNode } from '../plan.js';
import { aggregateRecords } from './aggregate.js';
import { contextFor, type EvalEnv } from './context.js';
import { filterSortAndPage, sortSpecOf } from './order.js';
import { applyProjection } from './projection.js';
import { compileFilter, compilePredicate } from './where.js';

export type { EvalContext, EvalEnv, Predicate } from './context.js';
export { compilePredicate } from './where.js';
export { applyProjection } from './projection.js';
export { sortAndPage, sortSpecOf, DEFAULT_SORT } from './order.js';

/** What a caller knows about the records it hands to {@link runFind}. */
export interface FindHints {
  /**
   * The records arrive in default order, (createdAt, objectId) ascending: a find in default order
   * then stops as soon as its page is full. A wrong `true` gives wrong results.
   */
  readonly inCreationOrder?: boolean;
}

/**
 * Runs a find plan over `records` (the queried table, `env.className`): filter, order (ties by
 * objectId), skip, limit, projection. The reference semantics every adapter must reproduce.
 * Records are returned as given (not copied) when the projection is `all`.
 *
 * @example runFind(table.values(), plan, env)
 */
export function runFind(records: Iterable<StoredRecord>, plan: FindPlan, env: EvalEnv, hints: FindHints = {}): StoredRecord[] {
  const filter = compileFilter(plan.where, contextFor(env, env.className));
  const page = filterSortAndPage(records, filter, sortSpecOf(plan), plan.skip, plan.limit, hints.inCreationOrder === true);
  return plan.projection.kind === 'all' ? page : page.map((r) => applyProjection(r, plan.projection));
}

/** Counts the records matching `where`. */
export function runCount(records: Iterable<StoredRecord>, where: WhereNode, env: EvalEnv): number {
  const pred = compilePredicate(where, contextFor(env, env.className));
  let n = 0;
  for (const r of records) if (pred(r)) n++;
  return n;
}

/** Runs a statistics plan; rows hold aggregates, `_count` and group columns (see docs/querying.md). */
export function runAggregate(records: Iterable<StoredRecord>, plan: AggregatePlan, env: EvalEnv): Array<Record<string, Value>> {
  return aggregateRecords(records, plan, contextFor(env, env.className));
}
