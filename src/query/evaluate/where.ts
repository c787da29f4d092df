import type { WhereKind, WhereNode } from '../plan.js';
import { generateFilter } from './codegen.js';
import type { EvalContext, Filter, Predicate } from './context.js';
import { compileCompare } from './operators/comparison.js';
import { compileExists } from './operators/exists.js';
import { compileNear, compileWithinBox } from './operators/geo.js';
import { compileAllRecords, compileAnd, compileOr } from './operators/logical.js';
import { compileContainsAll, compileIn } from './operators/membership.js';
import { compileRegex } from './operators/regex.js';
import { compileAclRead } from './operators/acl-read.js';
import { compileInQuery, compileRelatedTo, compileSelect } from './operators/subquery.js';
import { filterOf } from './select.js';

type NodeCompilers = { readonly [K in WhereKind]: (node: Extract<WhereNode, { kind: K }>, ctx: EvalContext) => Predicate };

/** One compiler per node kind: adding a kind to the plan fails to compile until it is handled here. */
const COMPILERS: NodeCompilers = {
  all_records: compileAllRecords,
  and: compileAnd,
  or: compileOr,
  compare: compileCompare,
  in: compileIn,
  exists: compileExists,
  contains_all: compileContainsAll,
  regex: compileRegex,
  in_query: compileInQuery,
  select: compileSelect,
  related_to: compileRelatedTo,
  near: compileNear,
  within_box: compileWithinBox,
  acl_read: compileAclRead,
};

/**
 * Compiles a where tree once into a predicate over records: generated code with constant column
 * names where the tree allows (codegen.ts), else closures. The reference semantics of every
 * operator (docs/querying.md) are the closure compilers'; the generated form calls them for anything
 * it does not inline.
 */
export function compilePredicate(node: WhereNode, ctx: EvalContext): Predicate {
  return compileFilter(node, ctx).test;
}

/** {@link compilePredicate} with the loop that selects an array's matches (select.ts). */
export function compileFilter(node: WhereNode, ctx: EvalContext): Filter {
  return generateFilter(node, ctx, compileClosurePredicate) ?? filterOf(compileClosurePredicate(node, ctx));
}

/** The closure compiler alone (no per-record allocation on the common paths). */
export function compileClosurePredicate(node: WhereNode, ctx: EvalContext): Predicate {
  const compile = COMPILERS[node.kind] as (node: WhereNode, ctx: EvalContext) => Predicate;
  return compile(node, ctx);
}
