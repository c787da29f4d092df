import type { Json } from '../core/wire-values.js';
import { ALL_RECORDS, type AggregatePlan, type FieldRef, type FindPlan, type WhereNode } from './plan.js';
import type { ParseContext, QuerySettings, WhereScope } from './parse/context.js';
import { parseInclude, type IncludePath } from './parse/include.js';
import { parseJsonObjectParam } from './parse/json-param.js';
import { commaList, flagParam, intParam, MAX_SKIP, parseKeys, parseLimit, parseOrder } from './parse/options.js';
import { isStatisticsQuery, parseStatistics } from './parse/statistics.js';
import { parseWhereObject } from './parse/where.js';

export type { ParseContext, QuerySettings } from './parse/context.js';
export type { IncludePath, IncludeStep } from './parse/include.js';
export { parseInclude } from './parse/include.js';
export { ANY_TABLE, listQueryFootprint, type QueryFootprint } from './parse/footprint.js';

/**
 * A parsed `GET /1/classes/:table` query, one of:
 * - `find`: records (`count` adds the total matching, ignoring limit and skip);
 * - `count`: only the total (`count=1&limit=0`), answered `{results: [], count}`;
 * - `aggregate`: a statistics query (sum/average/max/min/groupby/groupcount/having).
 */
export type ListQuery =
  | { readonly kind: 'find'; readonly plan: FindPlan; readonly count: boolean; readonly include: readonly IncludePath[] }
  | { readonly kind: 'count'; readonly where: WhereNode }
  | { readonly kind: 'aggregate'; readonly plan: AggregatePlan };

function rootScope(ctx: ParseContext): WhereScope {
  return { ctx, className: ctx.className, schema: ctx.schema(ctx.className), depth: 0, budget: { nodes: 0, innerQueries: 0 }, having: false };
}

/**
 * Parses and validates the query string of a list request into a plan, once. Errors are SvcErrors:
 * 102 `invalidQueryKey` naming the key (unknown operator, wrong operand type, bad name), 11060
 * `notSortable`, 11020 `regexNotInPlan`, 11021 `regexUnsafe`, 402 `whereTooLarge`, 107
 * `invalidJson`/`invalidDate`, 117 geo ranges.
 *
 * @example
 * parseListQuery(new URLSearchParams('where={"score":{"$gt":10}}&order=-score&limit=5'), ctx)
 */
export function parseListQuery(params: URLSearchParams, ctx: ParseContext, decoded?: DecodedWhere): ListQuery {
  const scope = rootScope(ctx);
  const where = decoded ? (decoded.where === null ? ALL_RECORDS : parseWhereObject(decoded.where, scope)) : parseWhereParam(params.get('where'), scope);
  if (isStatisticsQuery(params)) return { kind: 'aggregate', plan: parseStatistics(params, where, scope) };
  const limits = ctx.settings.query;
  const limit = parseLimit(params, limits.defaultLimit, limits.maxLimit);
  const count = flagParam(params, 'count');
  if (count && limit === 0) return { kind: 'count', where };
  const include = parseInclude(params.get('include'));
  const order = parseOrder(commaList(params, 'order'), scope);
  const plan: FindPlan = {
    where,
    order: Object.freeze(order),
    skip: intParam(params, 'skip', MAX_SKIP) ?? 0,
    limit,
    projection: parseKeys(commaList(params, 'keys'), include.map((path) => path[0]!.column)),
    ...nearestOf(where, order.length),
  };
  return { kind: 'find', plan: Object.freeze(plan), count, include };
}

/** A `where` parameter already decoded by {@link decodeWhereParam} (null: none), so it is parsed once. */
export interface DecodedWhere {
  readonly where: { [key: string]: Json } | null;
}

/**
 * Decodes a where JSON text once (size, JSON, object shape and depth checked: 402, 107, 102), for a
 * caller that must see its class names (`referencedClasses`) before parsing it into a plan.
 */
export function decodeWhereParam(text: string | null, settings: QuerySettings): DecodedWhere {
  if (text === null || text.trim() === '') return { where: null };
  return { where: parseJsonObjectParam(text, 'where', settings.query.maxWhereBytes) };
}

/** Parses a where JSON text (`null` or empty means every record). */
export function parseWhereParam(text: string | null, scopeOrCtx: WhereScope | ParseContext): WhereNode {
  const scope = 'ctx' in scopeOrCtx ? scopeOrCtx : rootScope(scopeOrCtx);
  if (text === null || text.trim() === '') return ALL_RECORDS;
  return parseWhereObject(parseJsonObjectParam(text, 'where', scope.ctx.settings.query.maxWhereBytes), scope);
}

/** Parses an already decoded where object (cloud code, batch, tests). */
export function parseWhere(where: { [key: string]: Json }, ctx: ParseContext): WhereNode {
  return parseWhereObject(where, rootScope(ctx));
}

/**
 * Without an explicit order, a `$nearSphere` in the top-level conjunction sorts nearest first. One
 * inside `$or` does not (records matching another branch have no distance).
 */
function nearestOf(where: WhereNode, orderTerms: number): { nearest?: FindPlan['nearest'] } {
  if (orderTerms > 0) return {};
  const top = where.kind === 'and' ? where.nodes : [where];
  const near = top.find((n) => n.kind === 'near');
  if (near?.kind !== 'near') return {};
  const field: FieldRef = near.field;
  return { nearest: Object.freeze({ field, point: near.point }) };
}

/**
 * Class names a where text's inner queries and `$relatedTo` name, so a caller can prefetch their
 * schemas before the synchronous parse. Lenient: malformed input yields what it can (parse reports
 * errors). Only a prefetch hint: access checks use the parsed plan's {@link listQueryFootprint}.
 */
export function referencedClasses(where: string | { readonly [key: string]: Json } | null): string[] {
  if (where === null) return [];
  let json: unknown = where;
  if (typeof where === 'string') {
    try {
      json = JSON.parse(where);
    } catch {
      return [];
    }
  }
  const found = new Set<string>();
  const stack: unknown[] = [json];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value !== 'object' || value === null) continue;
    if (!Array.isArray(value)) {
      const className = (value as { className?: unknown }).className;
      if (typeof className === 'string') found.add(className);
    }
    for (const child of Object.values(value as object)) stack.push(child);
  }
  return [...found];
}
