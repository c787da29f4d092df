import type { ColumnType } from '../../core/values.js';
import { isValidFieldName } from '../../core/names.js';
import { ALL_RECORDS, type AggregateFn, type AggregateOrderTerm, type AggregatePlan, type AggregateTerm, type GroupTerm, type WhereNode } from '../plan.js';
import { COUNT_COLUMN, resultSchema, sourceColumn } from '../statistics-schema.js';
import { queryError, type WhereScope } from './context.js';
import { parseJsonObjectParam } from './json-param.js';
import { commaList, flagParam, intParam, MAX_SKIP, parseLimit } from './options.js';
import { parseWhereObject } from './where.js';
import { merged } from '../../core/copy.js';

const AGGREGATES: ReadonlyArray<{ param: string; fn: AggregateFn; prefix: string; types: ReadonlySet<ColumnType> }> = [
  { param: 'sum', fn: 'sum', prefix: '_sum', types: new Set(['Number']) },
  { param: 'average', fn: 'avg', prefix: '_avg', types: new Set(['Number']) },
  { param: 'max', fn: 'max', prefix: '_max', types: new Set(['Number', 'Date', 'String']) },
  { param: 'min', fn: 'min', prefix: '_min', types: new Set(['Number', 'Date', 'String']) },
];
const GROUPABLE = new Set<ColumnType>(['String', 'Number', 'Boolean', 'Date', 'Pointer']);

/** True when the parameters ask for statistics (any aggregate, groupby, or groupcount=true). */
export function isStatisticsQuery(params: URLSearchParams): boolean {
  return (
    AGGREGATES.some((a) => commaList(params, a.param).length > 0) ||
    commaList(params, 'groupby').length > 0 ||
    flagParam(params, 'groupcount')
  );
}

function checkColumn(name: string, param: string, allowed: ReadonlySet<ColumnType>, scope: WhereScope): ColumnType | null {
  if (!isValidFieldName(name)) throw queryError(`invalid key '${name}' in ${param}.`);
  const column = sourceColumn(scope.schema, name);
  if (scope.schema === null) return column?.type ?? null;
  if (!column) throw queryError(`${param}: no column '${name}' in ${scope.className}.`);
  if (!allowed.has(column.type)) throw queryError(`${param}: '${name}' is a ${column.type} column.`);
  return column.type;
}

/**
 * Parses the statistics keys (sum, average, max, min, groupby, groupcount, having, order, limit,
 * skip) over an already parsed where. Result columns: `_sum<Col>`, `_avg<Col>`, `_max<Col>`,
 * `_min<Col>` (first letter capitalised), `_count`, and the group columns; `order` and `having`
 * name result columns, case-insensitively.
 */
export function parseStatistics(params: URLSearchParams, where: WhereNode, scope: WhereScope): AggregatePlan {
  const settings = scope.ctx.settings;
  const aggregates: AggregateTerm[] = [];
  const names = new Set<string>();
  for (const spec of AGGREGATES) {
    for (const column of commaList(params, spec.param)) {
      checkColumn(column, spec.param, spec.types, scope);
      const alias = `${spec.prefix}${column[0]!.toUpperCase()}${column.slice(1)}`;
      if (names.has(alias)) throw queryError(`${spec.param}: result column '${alias}' requested twice.`);
      names.add(alias);
      aggregates.push(Object.freeze({ fn: spec.fn, column, alias }));
    }
  }
  const groupBy: GroupTerm[] = [];
  for (const column of commaList(params, 'groupby')) {
    const type = checkColumn(column, 'groupby', GROUPABLE, scope);
    if (names.has(column)) throw queryError(`groupby: '${column}' named twice.`);
    names.add(column);
    groupBy.push(Object.freeze({ column, byDay: type === 'Date' }));
  }
  const groupCount = flagParam(params, 'groupcount');
  const base = { groupBy, aggregates, groupCount };
  const result = resultSchema(base, scope.schema);
  const havingScope: WhereScope = merged(scope, { className: result.className, schema: result, having: true });
  const resolve = (name: string, what: string): string => {
    const exact = Object.hasOwn(result.columns, name) ? name : undefined;
    const found = exact ?? Object.keys(result.columns).find((c) => c.toLowerCase() === name.toLowerCase());
    if (found === undefined) throw queryError(`${what}: '${name}' is not a result column of this statistics query.`);
    return found;
  };
  const havingText = params.get('having');
  let having: WhereNode = ALL_RECORDS;
  if (havingText !== null && havingText.trim() !== '') {
    const json = parseJsonObjectParam(havingText, 'having', settings.query.maxWhereBytes);
    having = parseWhereObject(json, havingScope);
  }
  const order: AggregateOrderTerm[] = commaList(params, 'order').map((term) => {
    const descending = term.startsWith('-');
    const name = resolve(descending || term.startsWith('+') ? term.slice(1) : term, 'order');
    return Object.freeze({ name, descending });
  });
  if (groupCount && names.has(COUNT_COLUMN)) throw queryError(`'${COUNT_COLUMN}' is reserved.`);
  return Object.freeze({
    where,
    groupBy: Object.freeze(groupBy),
    aggregates: Object.freeze(aggregates),
    groupCount,
    having,
    order: Object.freeze(order),
    skip: intParam(params, 'skip', MAX_SKIP) ?? 0,
    limit: parseLimit(params, settings.query.defaultLimit, settings.query.maxLimit),
    timeZone: settings.timeZone,
  });
}
