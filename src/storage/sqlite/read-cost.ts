import type { AggregatePlan, FieldRef, FindPlan, TableSchema, WhereNode } from '../../query/plan.js';

/**
 * Cost units (scanned rows × work per row) a read may take inline per millisecond of the stall
 * bound. Measured here, a unit costs 11 ns (sorting for a 100-record page) to 14 ns (a one-term full
 * scan) and 24 ns at worst (sorting for a page at offset 10,000), so an inline read stays under half
 * the bound at worst and near a quarter typically.
 */
export const UNITS_PER_STALL_MS = 20_000;

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
    case 'acl_read':
      // A NULL test of `ACL$read`, then per principal one `=` and at most one `instr` (D128, D147):
      // bounded, within the 2 units per principal measured for the JSON lookups this replaced.
      return 2 + 2 * node.principals.length;
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

/** Whether `node` (or a term of a top-level `and`) is `objectId` in a list (include fetches): primary-key lookups only. */
function objectIdLookups(node: WhereNode): boolean {
  if (node.kind === 'and') return node.nodes.some(objectIdLookups);
  return node.kind === 'in' && !node.negate && node.field.column === 'objectId' && node.field.path.length === 0 && node.values.length <= 1000;
}

function bounded(where: WhereNode, schema: TableSchema, rows: number, extra: number, limit: number): boolean {
  const weight = whereWeight(where, schema);
  if (pinsOneRecord(where, schema) || objectIdLookups(where)) return weight < 64;
  return Number.isFinite(weight) && rows <= rowCap(weight + extra, limit);
}

/** The most rows a read of `weight` per row (on top of the 2 every row costs) may visit under `limit` units; 0 when unbounded. */
function rowCap(weight: number, limit: number): number {
  return Number.isFinite(weight) ? Math.floor(limit / (2 + weight)) : 0;
}

function findExtra(plan: FindPlan): number {
  return Math.max(1, plan.order.length) * (2 + Math.log2(1 + plan.skip + plan.limit) / 4);
}

function aggregateExtra(plan: AggregatePlan): number {
  return 2 * plan.groupBy.length + plan.aggregates.length + (plan.groupCount ? 1 : 0);
}

/**
 * Whether a read's cost is bounded under `limit` units (`UNITS_PER_STALL_MS` × the stall bound), so
 * it may run inline: comparisons of scalar columns only over a table of at most `rows` rows (an upper
 * bound), or a lookup pinned to one record (objectId, a unique column). Sorting costs per row too,
 * more with a larger page (skip + limit): the default order counts as one term.
 */
export function inlineFind(schema: TableSchema, plan: FindPlan, rows: number, limit: number): boolean {
  if (plan.nearest || !plan.order.every((term) => scalarField(term.field, schema))) return false;
  return bounded(plan.where, schema, rows, findExtra(plan), limit);
}

export function inlineCount(schema: TableSchema, where: WhereNode, rows: number, limit: number): boolean {
  return bounded(where, schema, rows, 0, limit);
}

export function inlineAggregate(schema: TableSchema, plan: AggregatePlan, rows: number, limit: number): boolean {
  return bounded(plan.where, schema, rows, aggregateExtra(plan), limit);
}

/** The most matching rows a find may visit and still run inline under `limit` units (0: never by its row count). */
export function findRowCap(schema: TableSchema, plan: FindPlan, limit: number): number {
  if (plan.nearest || !plan.order.every((term) => scalarField(term.field, schema))) return 0;
  return rowCap(whereWeight(plan.where, schema) + findExtra(plan), limit);
}

export function aggregateRowCap(schema: TableSchema, plan: AggregatePlan, limit: number): number {
  return rowCap(whereWeight(plan.where, schema) + aggregateExtra(plan), limit);
}

const NARROWING = new Set(['eq', 'gt', 'gte', 'lt', 'lte']);

/**
 * The column a where is driven by when every top-level term narrows that one column (equality, a
 * range, or `$in`) and the column leads an index: then the rows a read visits are exactly the index
 * entries matching the where, which a bounded count can measure. Null otherwise.
 */
export function drivingIndexedColumn(where: WhereNode, schema: TableSchema): string | null {
  const terms = where.kind === 'and' ? where.nodes : [where];
  let column: string | null = null;
  for (const term of terms) {
    const narrows = (term.kind === 'compare' && NARROWING.has(term.op)) || (term.kind === 'in' && !term.negate);
    if (!narrows || term.field.path.length > 0 || !scalarField(term.field, schema)) return null;
    if (column !== null && term.field.column !== column) return null;
    column = term.field.column;
  }
  if (column === null || !schema.indexes.some((index) => index.columns[0] === column)) return null;
  return column;
}
