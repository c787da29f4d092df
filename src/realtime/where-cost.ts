import type { Value } from '../core/values.js';
import type { WhereKind, WhereNode } from '../query/plan.js';

type NodeCosts = { readonly [K in WhereKind]: (node: Extract<WhereNode, { kind: K }>) => number };

/** Cost of a regex leaf besides its pattern's length: a regex test costs tens of comparisons. */
const REGEX_BASE = 10;
/** Cost of a geo leaf (a great-circle distance or a box test). */
const GEO = 5;

/**
 * The cost of a where subscription's predicate, in comparison units: what matching it once costs and
 * what it holds in memory, as the realtime budgets count it (docs/realtime.md, "Where budgets and matching").
 * Each leaf costs 1, plus each value it lists (`$in`, `$nin`, `$all`; an object value by its size),
 * plus a regex's pattern length and 10; `$and`/`$or` cost their branches. Inner queries never reach
 * here (refused with 11169).
 *
 * @example whereCost(parsed({ score: { $in: [1, 2, 3] } })) === 4
 */
export function whereCost(node: WhereNode): number {
  const cost = COSTS[node.kind] as (node: WhereNode) => number;
  return cost(node);
}

const COSTS: NodeCosts = {
  all_records: () => 1,
  and: (node) => node.nodes.reduce((sum, child) => sum + whereCost(child), 0) || 1,
  or: (node) => node.nodes.reduce((sum, child) => sum + whereCost(child), 0) || 1,
  compare: (node) => valueWeight(node.value),
  in: (node) => 1 + listWeight(node.values),
  exists: () => 1,
  contains_all: (node) => 1 + listWeight(node.values),
  regex: (node) => REGEX_BASE + node.pattern.length,
  near: () => GEO,
  within_box: () => GEO,
  in_query: () => Infinity,
  select: () => Infinity,
  related_to: () => Infinity,
  acl_read: (node) => 1 + node.principals.length,
};

function listWeight(values: readonly Value[]): number {
  let sum = 0;
  for (const value of values) sum += valueWeight(value);
  return sum;
}

/** 1 for a primitive; an array or object 1 plus its members (a deep comparison visits each). */
function valueWeight(value: Value | undefined): number {
  if (value === null || typeof value !== 'object') return 1;
  let sum = 1;
  for (const member of Array.isArray(value) ? value : Object.values(value)) sum += valueWeight(member as Value);
  return sum;
}

/** The columns a where names (the schema entries its compiled form depends on), system fields included. */
export function namedColumns(node: WhereNode, into: Set<string> = new Set()): Set<string> {
  if (node.kind === 'and' || node.kind === 'or') for (const child of node.nodes) namedColumns(child, into);
  else if ('field' in node) into.add(node.field.column);
  return into;
}
