import type { FindPlan, TableSchema, WhereNode } from '../plan.js';
import { ACL_READ_COLUMN } from './acl-read-column.js';
import { aclReadBranches, aclReadCond } from './acl-read-sql.js';
import { and, condSql } from './cond.js';
import type { SqlQueryDialect } from './dialect.js';
import { join, param, raw, render, sql, type CompiledQuery, type Sql } from './fragment.js';
import { geoLatColumn, geoLngColumn } from './layout.js';
import { columnRef, newState, resolveSlot, tableRef, type CompileState, type SqlSchemaView, type TableScope } from './scope.js';
import { compileWhere } from './where-compiler.js';

/** Every physical column of a table, in layout order: objectId, createdAt, updatedAt, then columns. */
export function physicalColumnNames(schema: TableSchema | null): string[] {
  const names = ['objectId', 'createdAt', 'updatedAt'];
  for (const [name, column] of Object.entries(schema?.columns ?? {})) {
    if (column.type === 'Relation') continue;
    if (column.type === 'GeoPoint') names.push(geoLatColumn(name), geoLngColumn(name));
    else names.push(name);
  }
  return names;
}

function mainScope(className: string, state: CompileState): TableScope {
  return { alias: 't0', className, schema: state.view.schema(className) };
}

function whereClause(where: WhereNode, scope: TableScope, state: CompileState): Sql {
  return condSql(state.dialect, compileWhere(where, scope, state));
}

function orderClause(plan: FindPlan, scope: TableScope, state: CompileState): Sql {
  const d = state.dialect;
  const terms: Sql[] = [];
  if (plan.order.length > 0) {
    for (const term of plan.order) {
      const slot = resolveSlot(term.field, scope, state);
      if (slot.kind !== 'scalar') continue; // unknown columns hold no values: no effect on the order
      terms.push(d.orderTerm(slot.type === 'String' ? d.binaryText(slot.expr) : slot.expr, term.descending));
    }
  } else if (plan.nearest) {
    const slot = resolveSlot(plan.nearest.field, scope, state);
    if (slot.kind === 'geo') terms.push(d.orderTerm(d.geoDistance(slot.lat, slot.lng, plan.nearest.point), false));
  } else {
    terms.push(d.orderTerm(columnRef(state, scope, 'createdAt'), false));
  }
  terms.push(d.orderTerm(d.binaryText(columnRef(state, scope, 'objectId')), false));
  return join(terms, ', ');
}

/**
 * `SELECT` of every physical column of `className` for a find plan: the where, the order (ties
 * by objectId), LIMIT/OFFSET. Projection is left to the row decoder (`applyProjection`). The table
 * must exist (adapters answer [] themselves when its schema is null); inner queries on missing
 * tables compile to empty sets.
 *
 * @example compileFind('GameScore', plan, { namespace: 'app', schema }, sqliteDialect)
 */
export function compileFind(className: string, plan: FindPlan, view: SqlSchemaView, dialect: SqlQueryDialect): CompiledQuery {
  const state = newState(dialect, view);
  const scope = mainScope(className, state);
  const columns = join(physicalColumnNames(scope.schema).map((c) => columnRef(state, scope, c)), ', ');
  const statement = sql`SELECT ${columns} FROM ${tableRef(state, className)} AS ${raw(scope.alias)} WHERE ${whereClause(plan.where, scope, state)} ORDER BY ${orderClause(plan, scope, state)} ${limitClause(plan, dialect)}`;
  return render(statement, dialect.placeholder);
}

/** `LIMIT ? OFFSET ?`, or what the dialect writes instead (`inlineLimit`). */
function limitClause(plan: FindPlan, dialect: SqlQueryDialect): Sql {
  return dialect.inlineLimit?.(plan.limit, plan.skip) ?? sql`LIMIT ${param(plan.limit)} OFFSET ${param(plan.skip)}`;
}

/**
 * A find whose where ANDs the ACL read filter (`splitAclRead`), in two steps: the first `keep`
 * records matching the rest of the where, in the plan's order (SQLite's top-N sort, with no ACL test
 * per scanned row), then the ACL filter over those, the plan's order, limit and skip.
 *
 * The answer is the plan's exactly when it has `limit` rows: the first `skip + limit` readable
 * records are then among the `keep` first matching ones. With fewer rows the caller cannot tell
 * whether readable records lie beyond those `keep`, and runs `compileFind`. `keep` is a parameter.
 * The first step is a plain subquery in FROM: SQLite then reads the columns outside the sort key
 * only for rows that enter the top `keep`, as for any ORDER BY ... LIMIT (a materialized CTE reads
 * them first, and a window count of the kept rows cost a tenth of the find).
 * Null where it does not apply: no such where, a `near` order, or a dialect or table without
 * `ACL$read`.
 */
export function compileFindTopFirst(className: string, plan: FindPlan, keep: number, view: SqlSchemaView, dialect: SqlQueryDialect): CompiledQuery | null {
  const split = dialect.aclReadColumn && !plan.nearest ? splitAclRead(plan.where) : null;
  if (!split) return null;
  const state = newState(dialect, view);
  const scope = mainScope(className, state);
  if (resolveSlot({ column: 'ACL', path: [] }, scope, state).kind !== 'json') return null;
  const names = physicalColumnNames(scope.schema);
  const outer: TableScope = { alias: state.alias('t'), className, schema: scope.schema };
  const first = sql`SELECT ${join([...names, ACL_READ_COLUMN].map((c) => columnRef(state, scope, c)), ', ')} FROM ${tableRef(state, className)} AS ${raw(scope.alias)} WHERE ${whereClause(split.rest, scope, state)} ORDER BY ${orderClause(plan, scope, state)} LIMIT ${param(keep)}`;
  const columns = join(names.map((c) => columnRef(state, outer, c)), ', ');
  const readable = condSql(dialect, aclReadCond(columnRef(state, outer, ACL_READ_COLUMN), split.acl.principals, dialect));
  const statement = sql`SELECT ${columns} FROM (${first}) AS ${raw(outer.alias)} WHERE ${readable} ORDER BY ${orderClause(plan, outer, state)} LIMIT ${param(plan.limit)} OFFSET ${param(plan.skip)}`;
  return render(statement, dialect.placeholder);
}

/** `SELECT COUNT(*) AS "n"` of the records matching `where` (one row). */
export function compileCount(className: string, where: WhereNode, view: SqlSchemaView, dialect: SqlQueryDialect): CompiledQuery {
  const state = newState(dialect, view);
  const scope = mainScope(className, state);
  const statement = sql`SELECT COUNT(*) AS ${raw(dialect.quoteIdent('n'))} FROM ${tableRef(state, className)} AS ${raw(scope.alias)} WHERE ${whereClause(where, scope, state)}`;
  return render(statement, dialect.placeholder);
}

/**
 * A where that ANDs the ACL read filter at its top level, split into that filter and the rest (the
 * rest `all_records` when there is none); null for any other where, and when the filter names no
 * principal but `*` (then it is one branch already).
 */
export function splitAclRead(where: WhereNode): { readonly acl: Extract<WhereNode, { kind: 'acl_read' }>; readonly rest: WhereNode } | null {
  // Read once per count and find of a signed-in caller: no intermediate arrays.
  if (where.kind === 'acl_read') return splits(where) ? { acl: where, rest: ALL_RECORDS } : null;
  if (where.kind !== 'and') return null;
  const nodes = where.nodes;
  let at = -1;
  for (let i = 0; i < nodes.length; i++) {
    if (nodes[i]!.kind !== 'acl_read') continue;
    if (at >= 0) return null;
    at = i;
  }
  const acl = at >= 0 ? (nodes[at] as Extract<WhereNode, { kind: 'acl_read' }>) : null;
  if (!acl || !splits(acl)) return null;
  const rest: WhereNode = nodes.length === 1 ? ALL_RECORDS : nodes.length === 2 ? nodes[1 - at]! : { kind: 'and', nodes: nodes.filter((_, i) => i !== at) };
  return { acl, rest };
}

const ALL_RECORDS: WhereNode = { kind: 'all_records' };

/** Whether an ACL filter has branches to split: it holds `*` and another principal. */
function splits(acl: Extract<WhereNode, { kind: 'acl_read' }>): boolean {
  let star = false;
  let other = false;
  for (const key of acl.principals) {
    if (key === '*') star = true;
    else other = true;
  }
  return star && other;
}

/**
 * The count of a where that ANDs the ACL read filter (`splitAclRead`) as the sum of one count per
 * branch of the filter (acl-read-sql.ts: everyone, each of the caller's principals as the one granted,
 * several): the branches are disjoint, so the sum is the count. Each branch is a range of an index that carries `ACL$read`
 * after the where's equalities (D147), so no row and no index entry is tested one by one; the
 * adapter checks the plan (EXPLAIN QUERY PLAN) before it prefers this to `compileCount`. Null where
 * it does not apply: no such where, or a dialect or table without `ACL$read`.
 */
export function compileCountByAclBranch(className: string, where: WhereNode, view: SqlSchemaView, dialect: SqlQueryDialect): CompiledQuery | null {
  const split = dialect.aclReadColumn ? splitAclRead(where) : null;
  if (!split) return null;
  const state = newState(dialect, view);
  const scope = mainScope(className, state);
  if (resolveSlot({ column: 'ACL', path: [] }, scope, state).kind !== 'json') return null;
  const branches = aclReadBranches(columnRef(state, scope, ACL_READ_COLUMN), split.acl.principals, dialect);
  const counts = [branches.everyone, ...branches.one, branches.several].map((branch) => {
    const cond = and([compileWhere(split.rest, scope, state), branch]);
    return sql`(SELECT COUNT(*) FROM ${tableRef(state, className)} AS ${raw(scope.alias)} WHERE ${condSql(dialect, cond)})`;
  });
  return render(sql`SELECT ${join(counts, ' + ')} AS ${raw(dialect.quoteIdent('n'))}`, dialect.placeholder);
}

/** `SELECT 1 FROM <table> WHERE <where>`, unordered: the match walk both probes below bound. */
function selectMatches(className: string, where: WhereNode, view: SqlSchemaView, dialect: SqlQueryDialect): Sql {
  const state = newState(dialect, view);
  const scope = mainScope(className, state);
  return sql`SELECT 1 FROM ${tableRef(state, className)} AS ${raw(scope.alias)} WHERE ${whereClause(where, scope, state)}`;
}

/**
 * `SELECT COUNT(*)` of the records matching `where`, counting at most `cap`: a bounded probe (the
 * SQLite adapter's read dispatch asks whether an indexed read matches few records).
 */
export function compileCountUpTo(className: string, where: WhereNode, view: SqlSchemaView, dialect: SqlQueryDialect, cap: number): CompiledQuery {
  if (!Number.isSafeInteger(cap) || cap < 1) throw new Error(`[svcbase] count cap must be a positive integer, got ${cap}`);
  const inner = sql`${selectMatches(className, where, view, dialect)} LIMIT ${raw(String(cap))}`;
  return render(sql`SELECT COUNT(*) AS ${raw(dialect.quoteIdent('n'))} FROM (${inner})`, dialect.placeholder);
}

/**
 * `SELECT 1` of the record after the first `count` matching `where` (no order): a row exactly when
 * more than `count` records match. A cheaper probe than `compileCountUpTo` where only "at most
 * `count`?" matters: SQLite steps past the first `count` matches without handing them to an outer query.
 */
export function compileMatchBeyond(className: string, where: WhereNode, view: SqlSchemaView, dialect: SqlQueryDialect, count: number): CompiledQuery {
  if (!Number.isSafeInteger(count) || count < 0) throw new Error(`[svcbase] match offset must be a non-negative integer, got ${count}`);
  return render(sql`${selectMatches(className, where, view, dialect)} LIMIT 1 OFFSET ${raw(String(count))}`, dialect.placeholder);
}

export { whereClause, mainScope };
