import type { AggregatePlan, FieldRef, FindPlan, TableSchema, WhereNode } from '../../query/plan.js';

/**
 * Cost units (scanned rows × work per row) under which a read runs inline on the caller's thread:
 * about 50 ms of SQLite work on one 2020s core (a one-term full scan costs about 40 ns per row,
 * sorting an unindexed column about 200 ns per row).
 */
export const INLINE_COST = 2_000_000;

const SCALAR = new Set(['String', 'Number', 'Boolean', 'Date', 'Pointer']);

/** A column compared as one SQL value: built-in, scalar-typed, or unknown (a constant). */
function scalarField(field: FieldRef, schema: TableSchema): boolean {
  if (field.path.length > 0) return false;
  const column = Object.hasOwn(schema.columns, field.column) ? schema.columns[field.column] : undefined;
  return column === undefined || SCALAR.has(column.type);
}

/**
 * Per-row work of a where built of comparisons of scalar columns only; Infinity for anything else
 * (regexes, JSON paths, arrays, geo, inner queries), whose cost per row has no useful bound.
 */
function whereWeight(node: WhereNode, schema: TableSchema): number {
  switch (node.kind) {
    case 'all_records':
      return 0;
    case 'and':
    case 'or': {
      let sum = 0;
      for (const child of node.nodes) sum += whereWeight(child, schema);
      return sum;
    }
    case 'compare':
    case 'exists':
      return scalarField(node.field, schema) ? 1 : Number.POSITIVE_INFINITY;
    case 'in':
      return scalarField(node.field, schema) ? 1 + Math.ceil(node.values.length / 32) : Number.POSITIVE_INFINITY;
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

function bounded(where: WhereNode, schema: TableSchema, rows: number, extra: number): boolean {
  const weight = whereWeight(where, schema);
  if (pinsOneRecord(where, schema) || objectIdLookups(where)) return weight < 64;
  return rows * (2 + weight + extra) <= INLINE_COST;
}

/**
 * Whether a read's cost is bounded small enough to run inline: comparisons of scalar columns only
 * over a table of at most `rows` rows (an upper bound), or a lookup by objectId/unique column. Order
 * terms on JSON paths and `near` sorts are per-row work without a bound too.
 */
export function inlineFind(schema: TableSchema, plan: FindPlan, rows: number): boolean {
  if (plan.nearest || !plan.order.every((term) => scalarField(term.field, schema))) return false;
  return bounded(plan.where, schema, rows, 2 * plan.order.length);
}

export function inlineCount(schema: TableSchema, where: WhereNode, rows: number): boolean {
  return bounded(where, schema, rows, 0);
}

export function inlineAggregate(schema: TableSchema, plan: AggregatePlan, rows: number): boolean {
  const extra = 2 * plan.groupBy.length + plan.aggregates.length + (plan.groupCount ? 1 : 0);
  return bounded(plan.where, schema, rows, extra);
}
