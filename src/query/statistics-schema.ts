import type { ColumnType } from '../core/values.js';
import type { AggregatePlan, AggregateTerm, ColumnSchema, GroupTerm, TableSchema } from './plan.js';
import { schemaColumn } from './schema-lookup.js';

/** Name of the per-group record count column (`groupcount=true`). */
export const COUNT_COLUMN = '_count';

const SYSTEM: Readonly<Record<string, ColumnType>> = { objectId: 'String', createdAt: 'Date', updatedAt: 'Date' };

/** The schema entry of a top-level column of the source table, system fields included. */
export function sourceColumn(schema: TableSchema | null, column: string): ColumnSchema | undefined {
  if (Object.hasOwn(SYSTEM, column)) return { type: SYSTEM[column]! };
  return schemaColumn(schema, column);
}

/**
 * The columns of a statistics result, in output order (aggregates, `_count`, group columns), with
 * the type each holds: sums and averages are Numbers, max/min keep their column's type, `_count`
 * is a Number, a Date group column holds its day as a `YYYY-MM-DD` String. `having` and `order`
 * of a statistics query are validated and compiled against this synthetic table.
 */
export function resultSchema(
  plan: Pick<AggregatePlan, 'groupBy' | 'aggregates' | 'groupCount'>,
  source: TableSchema | null,
): TableSchema {
  const columns: Record<string, ColumnSchema> = {};
  for (const term of plan.aggregates) columns[term.alias] = aggregateColumn(term, source);
  if (plan.groupCount) columns[COUNT_COLUMN] = { type: 'Number' };
  for (const group of plan.groupBy) columns[group.column] = groupColumn(group, source);
  return { className: '(statistics)', columns, indexes: [] };
}

function aggregateColumn(term: AggregateTerm, source: TableSchema | null): ColumnSchema {
  if (term.fn === 'sum' || term.fn === 'avg') return { type: 'Number' };
  return { type: sourceColumn(source, term.column)?.type ?? 'Number' };
}

function groupColumn(group: GroupTerm, source: TableSchema | null): ColumnSchema {
  if (group.byDay) return { type: 'String' };
  const column = sourceColumn(source, group.column);
  if (!column) return { type: 'String' };
  return column.targetClass === undefined ? { type: column.type } : { type: column.type, targetClass: column.targetClass };
}
