import { formatDay } from '../../core/time.js';
import type { DateValue, StoredRecord, Value } from '../../core/values.js';
import { dateMs } from '../../core/values.js';
import { compareSameType, compareSortKeys, sortKeyOf, type SortKey } from '../compare.js';
import type { AggregatePlan, AggregateTerm, GroupTerm } from '../plan.js';
import { COUNT_COLUMN, resultSchema } from '../statistics-schema.js';
import type { EvalContext } from './context.js';
import { compileGetter } from './field.js';
import { compilePredicate } from './where.js';

interface Group {
  readonly keys: Value[];
  count: number;
  readonly acc: Accumulator[];
}

interface Accumulator {
  sum: number;
  n: number;
  best: Value;
}

/** The group value of one record: a Date groups by its day (`YYYY-MM-DD`) in the plan's zone. */
function groupValue(term: GroupTerm, v: Value | undefined, timeZone: string): Value {
  if (v === undefined || v === null) return null;
  if (term.byDay) return typeof v === 'object' && !Array.isArray(v) && (v as { __type?: string }).__type === 'Date'
    ? formatDay(dateMs(v as DateValue), timeZone)
    : null;
  return v;
}

/** A stable identity of a group value (numbers by value, Pointers by id, Booleans by truth). */
function identity(v: Value): string {
  if (v === null) return 'n';
  if (typeof v === 'number') return `d${v === 0 ? 0 : v}`;
  if (typeof v === 'string') return `s${v}`;
  if (typeof v === 'boolean') return v ? 'b1' : 'b0';
  const t = v as { __type?: string; objectId?: string };
  return t.__type === 'Pointer' ? `p${t.objectId}` : `j${JSON.stringify(v)}`;
}

function accumulate(acc: Accumulator, term: AggregateTerm, v: Value | undefined): void {
  if (v === undefined || v === null) return;
  if (term.fn === 'sum' || term.fn === 'avg') {
    if (typeof v === 'number') (acc.sum += v), acc.n++;
    return;
  }
  if (acc.best === null) return void (acc.best = v);
  const c = compareSameType(v, acc.best);
  if (c !== null && (term.fn === 'max' ? c > 0 : c < 0)) acc.best = v;
}

function finish(acc: Accumulator, term: AggregateTerm): Value {
  if (term.fn === 'sum') return acc.sum;
  if (term.fn === 'avg') return acc.n === 0 ? null : acc.sum / acc.n;
  return acc.best;
}

/** Sort key of a result value: numbers, strings, days; Pointers by id, Booleans as 0/1. */
function resultKey(v: Value | undefined): SortKey {
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'object' && v !== null && !Array.isArray(v) && (v as { __type?: string }).__type === 'Pointer') {
    return (v as { objectId: string }).objectId;
  }
  return sortKeyOf(v);
}

/**
 * Statistics in memory: filter, group (by exact value; Dates by day), aggregate (sum of no values
 * is 0, average/max/min of no values null), filter groups by `having`, order by the requested
 * result columns then by the group columns ascending, page. Without groupby there is exactly one
 * group, even over no records.
 */
export function aggregateRecords(records: Iterable<StoredRecord>, plan: AggregatePlan, ctx: EvalContext): Array<Record<string, Value>> {
  const pred = compilePredicate(plan.where, ctx);
  const groupGetters = plan.groupBy.map((g) => compileGetter({ column: g.column, path: [] }));
  const aggGetters = plan.aggregates.map((a) => compileGetter({ column: a.column, path: [] }));
  const groups = new Map<string, Group>();
  const newGroup = (keys: Value[]): Group => ({ keys, count: 0, acc: plan.aggregates.map(() => ({ sum: 0, n: 0, best: null })) });
  if (plan.groupBy.length === 0) groups.set('', newGroup([]));
  for (const r of records) {
    if (!pred(r)) continue;
    const keys = plan.groupBy.map((g, i) => groupValue(g, groupGetters[i]!(r), plan.timeZone));
    const id = keys.length === 0 ? '' : keys.length === 1 ? identity(keys[0]!) : JSON.stringify(keys.map(identity));
    let group = groups.get(id);
    if (!group) groups.set(id, (group = newGroup(keys)));
    group.count++;
    for (let i = 0; i < aggGetters.length; i++) accumulate(group.acc[i]!, plan.aggregates[i]!, aggGetters[i]!(r));
  }
  const rows: Array<Record<string, Value>> = [];
  for (const g of groups.values()) {
    const row: Record<string, Value> = {};
    plan.aggregates.forEach((a, i) => (row[a.alias] = finish(g.acc[i]!, a)));
    if (plan.groupCount) row[COUNT_COLUMN] = g.count;
    plan.groupBy.forEach((t, i) => (row[t.column] = g.keys[i]!));
    rows.push(row);
  }
  const havingCtx: EvalContext = { env: ctx.env, className: '(statistics)', schema: resultSchema(plan, ctx.schema) };
  const having = compilePredicate(plan.having, havingCtx);
  const kept = rows.filter((row) => having(row as StoredRecord));
  const terms = [
    ...plan.order.map((o) => ({ name: o.name, descending: o.descending })),
    ...plan.groupBy.map((g) => ({ name: g.column, descending: false })),
  ];
  const decorated = kept.map((row) => ({ row, keys: terms.map((t) => resultKey(row[t.name])) }));
  decorated.sort((a, b) => {
    for (let j = 0; j < terms.length; j++) {
      const c = compareSortKeys(a.keys[j]!, b.keys[j]!);
      if (c !== 0) return terms[j]!.descending ? -c : c;
    }
    return 0;
  });
  return decorated.slice(plan.skip, plan.skip + plan.limit).map((d) => d.row);
}
