import type { AggregatePlan, FindPlan, TableSchema, WhereNode } from '../../query/plan.js';
import { countShape, findShape } from './query-cache.js';

/**
 * Cost units (scanned rows × work per row) under which a read runs inline on the caller's thread:
 * about 50 ms of SQLite work on one 2020s core (a one-term full scan costs about 40 ns per row,
 * sorting an unindexed column about 200 ns per row).
 */
export const INLINE_COST = 2_000_000;

/**
 * Per-row work of a where built of scalar comparisons only; Infinity for anything else (regexes,
 * JSON paths, arrays, geo, inner queries), whose cost per row has no useful bound.
 */
function whereWeight(node: WhereNode): number {
  switch (node.kind) {
    case 'all_records':
      return 0;
    case 'and':
    case 'or':
      return node.nodes.reduce((sum, child) => sum + whereWeight(child), 0);
    case 'compare':
    case 'exists':
      return 1;
    case 'in':
      return 1 + Math.ceil(node.values.length / 32);
    default:
      return Number.POSITIVE_INFINITY;
  }
}

/** Whether `node` (or a term of a top-level `and`) pins at most one record: objectId, or a unique single-column index. */
function pinsOneRecord(node: WhereNode, schema: TableSchema): boolean {
  if (node.kind === 'and') return node.nodes.some((child) => pinsOneRecord(child, schema));
  if (node.kind !== 'compare' || node.op !== 'eq' || node.field.path.length > 0) return false;
  const column = node.field.column;
  return column === 'objectId' || schema.indexes.some((index) => index.unique && index.columns.length === 1 && index.columns[0] === column);
}

/** Whether `node` is `objectId` in a list (include fetches): primary-key lookups only. */
function objectIdLookups(node: WhereNode): boolean {
  return node.kind === 'in' && !node.negate && node.field.column === 'objectId' && node.field.path.length === 0 && node.values.length <= 1000;
}

function bounded(where: WhereNode, schema: TableSchema, rows: number, extra: number, scalar: boolean): boolean {
  if (!scalar) return false;
  if (pinsOneRecord(where, schema) || objectIdLookups(where)) return whereWeight(where) < 64;
  return rows * (2 + whereWeight(where) + extra) <= INLINE_COST;
}

/**
 * Whether a read's cost is bounded small enough to run inline: scalar terms only (the shapes the
 * query cache accepts, minus regexes) over a table of at most `rows` rows (an upper bound), or a
 * lookup by objectId/unique column.
 */
export function inlineFind(schema: TableSchema, plan: FindPlan, rows: number): boolean {
  return bounded(plan.where, schema, rows, 2 * plan.order.length, findShape(schema, plan) !== null);
}

export function inlineCount(schema: TableSchema, where: WhereNode, rows: number): boolean {
  return bounded(where, schema, rows, 0, countShape(schema, where) !== null);
}

export function inlineAggregate(schema: TableSchema, plan: AggregatePlan, rows: number): boolean {
  const extra = 2 * plan.groupBy.length + plan.aggregates.length + (plan.groupCount ? 1 : 0);
  return bounded(plan.where, schema, rows, extra, countShape(schema, plan.where) !== null);
}
