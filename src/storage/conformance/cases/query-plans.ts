import type { Value } from '../../../core/values.js';
import { dateValue } from '../../../core/values.js';
import type { AggregatePlan, CompareOp, FieldRef, FindPlan, OrderTerm, WhereNode } from '../../../query/plan.js';

const f = (column: string, ...path: string[]): FieldRef => ({ column, path });
const cmp = (column: string, op: CompareOp, value: Value, ...path: string[]): WhereNode => ({ kind: 'compare', field: f(column, ...path), op, value });
const asc = (column: string): OrderTerm => ({ field: f(column), descending: false });
const desc = (column: string): OrderTerm => ({ field: f(column), descending: true });
const ALL: WhereNode = { kind: 'all_records' };
const player = (objectId: string) => ({ __type: 'Pointer', className: 'Player', objectId }) as const;
const point = { __type: 'GeoPoint', latitude: 33, longitude: -15 } as const;

function find(where: WhereNode, extra: Partial<FindPlan> = {}): FindPlan {
  return { where, order: [], skip: 0, limit: 100, projection: { kind: 'all' }, ...extra };
}

/** Find plans over `Score` (and one over `Player`), each compared with the reference evaluator. */
export const FIND_CASES: ReadonlyArray<{ name: string; className?: string; plan: FindPlan }> = [
  { name: 'every record, default order', plan: find(ALL) },
  { name: 'number comparisons', plan: find({ kind: 'and', nodes: [cmp('score', 'gte', 0), cmp('score', 'lt', 6)] }) },
  { name: 'ne matches missing values', plan: find(cmp('score', 'ne', 1)) },
  { name: 'string equality is case-sensitive', plan: find(cmp('playerName', 'eq', 'sean')) },
  { name: 'string ordering comparisons', plan: find(cmp('playerName', 'gt', 'Smile'), { order: [asc('playerName')] }) },
  { name: 'date comparisons', plan: find(cmp('when', 'lt', dateValue(Date.UTC(2026, 0, 1))), { order: [desc('when')] }) },
  { name: 'createdAt comparison', plan: find(cmp('createdAt', 'gte', dateValue(Date.UTC(2026, 0, 2)))) },
  { name: 'boolean equality', plan: find(cmp('done', 'eq', false)) },
  { name: 'array contains a value', plan: find(cmp('tags', 'eq', 'b')) },
  { name: 'array contains a number', plan: find(cmp('tags', 'eq', 3)) },
  { name: 'pointer equality', plan: find(cmp('owner', 'eq', player('p02'))) },
  { name: 'in and not in', plan: find({ kind: 'or', nodes: [{ kind: 'in', field: f('score'), negate: false, values: [1, 5, 'x'] }, { kind: 'in', field: f('playerName'), negate: true, values: ['Sean', 'smile', 'Zed', 'anna', 'Bob', 'x'] }] }) },
  { name: 'exists true and false', plan: find({ kind: 'and', nodes: [{ kind: 'exists', field: f('score'), exists: true }, { kind: 'exists', field: f('tags'), exists: false }] }) },
  { name: 'contains all', plan: find({ kind: 'contains_all', field: f('tags'), values: ['a', 'b'] }) },
  { name: 'regex with flags', plan: find({ kind: 'regex', field: f('playerName'), pattern: '^smi', flags: 'i' }) },
  { name: 'object sub-key comparison', plan: find(cmp('meta', 'gte', 4, 'level')) },
  { name: 'object sub-key string equality', plan: find(cmp('meta', 'eq', 'Paris', 'city')) },
  { name: 'or of ands', plan: find({ kind: 'or', nodes: [cmp('score', 'lt', -1), { kind: 'and', nodes: [cmp('score', 'gt', 5), cmp('playerName', 'ne', 'Zed')] }] }) },
  {
    name: 'in_query on a pointer',
    plan: find({ kind: 'in_query', field: f('owner'), negate: false, query: { table: 'Player', where: cmp('vip', 'eq', true), limit: 100 } }),
  },
  {
    name: 'not in_query on a pointer',
    plan: find({ kind: 'in_query', field: f('owner'), negate: true, query: { table: 'Player', where: cmp('level', 'eq', 7), limit: 100 } }),
  },
  {
    name: 'select over another table',
    plan: find({ kind: 'select', field: f('playerName'), negate: false, key: f('name'), query: { table: 'Player', where: ALL, limit: 100 } }),
  },
  { name: 'related_to', className: 'Player', plan: find({ kind: 'related_to', owner: { __type: 'Pointer', className: 'Post', objectId: 'q01' }, key: 'likes' }) },
  {
    name: 'near, nearest first',
    plan: find({ kind: 'near', field: f('place'), point, maxRadians: 0.2 }, { nearest: { field: f('place'), point } }),
  },
  { name: 'near with an explicit order', plan: find({ kind: 'near', field: f('place'), point, maxRadians: 1 }, { order: [desc('score')] }) },
  {
    name: 'within a box',
    plan: find({ kind: 'within_box', field: f('place'), southWest: { __type: 'GeoPoint', latitude: 31, longitude: -20 }, northEast: { __type: 'GeoPoint', latitude: 37, longitude: 0 } }),
  },
  { name: 'order by several columns, nulls first ascending', plan: find(ALL, { order: [asc('score'), desc('playerName')] }) },
  { name: 'descending puts nulls last', plan: find(ALL, { order: [desc('score')] }) },
  { name: 'skip and limit', plan: find(ALL, { order: [asc('playerName')], skip: 3, limit: 4 }) },
  { name: 'limit 0', plan: find(ALL, { limit: 0 }) },
  { name: 'include projection', plan: find(cmp('score', 'gt', 0), { projection: { kind: 'include', columns: ['score', 'tags'] } }) },
  { name: 'exclude projection', plan: find(ALL, { projection: { kind: 'exclude', columns: ['meta', 'place', 'when'] } }) },
];

/** Where clauses for `count`. */
export const COUNT_CASES: ReadonlyArray<{ name: string; where: WhereNode }> = [
  { name: 'count everything', where: ALL },
  { name: 'count a comparison', where: cmp('score', 'gt', 0) },
  { name: 'count missing values', where: { kind: 'exists', field: f('when'), exists: false } },
];

function aggregate(extra: Partial<AggregatePlan>): AggregatePlan {
  return { where: ALL, groupBy: [], aggregates: [], groupCount: false, having: ALL, order: [], skip: 0, limit: 100, timeZone: 'UTC', ...extra };
}

/** Statistics plans over `Score`. */
export const AGGREGATE_CASES: ReadonlyArray<{ name: string; plan: AggregatePlan }> = [
  { name: 'sum, average, max and min without groups', plan: aggregate({ aggregates: [{ fn: 'sum', column: 'score', alias: '_sumScore' }, { fn: 'avg', column: 'score', alias: '_avgScore' }, { fn: 'max', column: 'score', alias: '_maxScore' }, { fn: 'min', column: 'score', alias: '_minScore' }] }) },
  { name: 'group by a pointer with counts', plan: aggregate({ groupBy: [{ column: 'owner', byDay: false }], groupCount: true, aggregates: [{ fn: 'sum', column: 'score', alias: '_sumScore' }] }) },
  { name: 'group by day in a time zone', plan: aggregate({ groupBy: [{ column: 'when', byDay: true }], groupCount: true, timeZone: 'Asia/Shanghai', order: [{ name: 'when', descending: true }] }) },
  {
    name: 'having over an aggregate',
    plan: aggregate({ groupBy: [{ column: 'done', byDay: false }], aggregates: [{ fn: 'sum', column: 'score', alias: '_sumScore' }], having: cmp('_sumScore', 'gt', 0) }),
  },
  { name: 'distinct values with a where', plan: aggregate({ where: cmp('score', 'gte', 0), groupBy: [{ column: 'playerName', byDay: false }], order: [{ name: 'playerName', descending: false }], limit: 3 }) },
];
