import type { Value } from '../../core/values.js';
import { dateValue } from '../../core/values.js';
import type { AggregatePlan, AggregateTerm, ColumnSchema } from '../plan.js';
import { COUNT_COLUMN, resultSchema } from '../statistics-schema.js';
import { condSql } from './cond.js';
import type { SqlQueryDialect } from './dialect.js';
import { join, param, raw, render, sql, type CompiledQuery, type Sql } from './fragment.js';
import { mainScope, whereClause } from './find-compiler.js';
import { columnRef, newState, resolveSlot, tableRef, type CompileState, type SqlSchemaView, type TableScope } from './scope.js';
import { compileWhere } from './where-compiler.js';

/** A compiled statistics query and the decoder of its rows into result values. */
export interface CompiledAggregate {
  readonly query: CompiledQuery;
  decode(row: Readonly<Record<string, unknown>>): Record<string, Value>;
}

function aggregateExpr(term: AggregateTerm, scope: TableScope, state: CompileState): Sql {
  const d = state.dialect;
  const slot = resolveSlot({ column: term.column, path: [] }, scope, state);
  if (slot.kind !== 'scalar') return term.fn === 'sum' ? raw('0') : raw('NULL');
  const expr = slot.type === 'String' ? d.binaryText(slot.expr) : slot.expr;
  switch (term.fn) {
    case 'sum':
      return d.sum(expr);
    case 'avg':
      return sql`AVG(${expr})`;
    case 'max':
      return sql`MAX(${expr})`;
    case 'min':
      return sql`MIN(${expr})`;
  }
}

/**
 * Statistics as one statement: an inner SELECT groups and aggregates the matching records
 * (`GROUP BY` result positions; Date columns by day in the plan's zone), an outer SELECT applies
 * `having` over the result columns, orders (requested terms, then group columns ascending) and
 * pages. Without groupby the inner SELECT yields exactly one row.
 */
export function compileAggregate(className: string, plan: AggregatePlan, view: SqlSchemaView, dialect: SqlQueryDialect): CompiledAggregate {
  const state = newState(dialect, view);
  const scope = mainScope(className, state);
  const q = (name: string) => raw(dialect.quoteIdent(name));
  const items: Sql[] = plan.aggregates.map((a) => sql`${aggregateExpr(a, scope, state)} AS ${q(a.alias)}`);
  if (plan.groupCount) items.push(sql`COUNT(*) AS ${q(COUNT_COLUMN)}`);
  const groupPositions: Sql[] = [];
  for (const group of plan.groupBy) {
    const slot = resolveSlot({ column: group.column, path: [] }, scope, state);
    let expr: Sql = slot.kind === 'scalar' ? slot.expr : raw('NULL');
    if (group.byDay && slot.kind === 'scalar') expr = dialect.dayOf(expr, plan.timeZone);
    items.push(sql`${expr} AS ${q(group.column)}`);
    groupPositions.push(raw(String(items.length)));
  }
  const groupBy = groupPositions.length > 0 ? sql` GROUP BY ${join(groupPositions, ', ')}` : raw('');
  const inner = sql`SELECT ${join(items, ', ')} FROM ${tableRef(state, className)} AS ${raw(scope.alias)} WHERE ${whereClause(plan.where, scope, state)}${groupBy}`;

  const result = resultSchema(plan, scope.schema);
  const outer: TableScope = { alias: 'g', className: result.className, schema: result };
  const having = condSql(dialect, compileWhere(plan.having, outer, state));
  const ref = (name: string): Sql => {
    const expr = columnRef(state, outer, name);
    return result.columns[name]?.type === 'String' ? dialect.binaryText(expr) : expr;
  };
  const order = [
    ...plan.order.map((o) => dialect.orderTerm(ref(o.name), o.descending)),
    ...plan.groupBy.map((g) => dialect.orderTerm(ref(g.column), false)),
  ];
  const orderBy = order.length > 0 ? sql` ORDER BY ${join(order, ', ')}` : raw('');
  const statement = sql`SELECT * FROM (${inner}) AS g WHERE ${having}${orderBy} LIMIT ${param(plan.limit)} OFFSET ${param(plan.skip)}`;

  const names = Object.keys(result.columns);
  return {
    query: render(statement, dialect.placeholder),
    decode(row) {
      const out: Record<string, Value> = {};
      for (const name of names) out[name] = decodeResult(result.columns[name]!, row[name]);
      return out;
    },
  };
}

function decodeResult(column: ColumnSchema, raw: unknown): Value {
  if (raw === null || raw === undefined) return null;
  switch (column.type) {
    case 'Number':
      return Number(raw);
    case 'Boolean':
      return raw === 1 || raw === 1n || raw === true;
    case 'Date':
      return dateValue(Number(raw));
    case 'Pointer':
      return { __type: 'Pointer', className: column.targetClass ?? '', objectId: String(raw) };
    default:
      return String(raw);
  }
}
