import type { DateValue, GeoPointValue, PointerValue, Value } from '../../core/values.js';
import { dateMs } from '../../core/values.js';
import type { CompareOp, WhereKind, WhereNode } from '../plan.js';
import { ACL_READ_COLUMN } from './acl-read-column.js';
import { aclReadCond } from './acl-read-sql.js';
import { and, not, or, type Cond } from './cond.js';
import { join, param, raw, sql, type Sql, type SqlParam } from './fragment.js';
import { anyJson, jsonEqualsOne, jsonOrderOne } from './json-predicates.js';
import { jsonContainsAll, jsonEqualsAny } from './list-predicates.js';
import { relationContains, compileInQuerySql, compileRelatedToSql, compileSelectSql } from './subquery-sql.js';
import { compileNearSql, compileWithinSql } from './geo-sql.js';
import { columnRef, resolveSlot, type CompileState, type Slot, type TableScope } from './scope.js';

type Handlers = { readonly [K in WhereKind]: (node: Extract<WhereNode, { kind: K }>, scope: TableScope, state: CompileState) => Cond };

/**
 * One handler per node kind (the evaluator has the same table): adding a kind to the plan fails
 * to compile until every dialect path handles it.
 */
const HANDLERS: Handlers = {
  all_records: () => true,
  and: (node, scope, state) => and(node.nodes.map((n) => compileWhere(n, scope, state))),
  or: (node, scope, state) => or(node.nodes.map((n) => compileWhere(n, scope, state))),
  compare: (node, scope, state) => {
    const slot = resolveSlot(node.field, scope, state);
    if (node.op === 'eq') return equals(slot, node.value, scope, state);
    if (node.op === 'ne') return not(state.dialect, equals(slot, node.value, scope, state));
    return ordered(slot, node.op, node.value, state);
  },
  in: (node, scope, state) => {
    const c = inList(resolveSlot(node.field, scope, state), node.values, scope, state);
    return node.negate ? not(state.dialect, c) : c;
  },
  exists: (node, scope, state) => existsCond(resolveSlot(node.field, scope, state), node.exists, state),
  contains_all: (node, scope, state) => {
    const slot = resolveSlot(node.field, scope, state);
    return slot.kind === 'json' ? jsonContainsAll(state, slot, node.values) : false;
  },
  regex: (node, scope, state) => {
    const slot = resolveSlot(node.field, scope, state);
    const d = state.dialect;
    if (slot.kind === 'scalar') return slot.type === 'String' ? d.regex(slot.expr, node.pattern, node.flags) : false;
    if (slot.kind !== 'json') return false;
    return anyJson(state, slot, (n) => and([d.jsonIs(n, 'string'), d.regex(d.jsonText(n), node.pattern, node.flags)]));
  },
  in_query: (node, scope, state) => compileInQuerySql(node, resolveSlot(node.field, scope, state), scope, state),
  select: (node, scope, state) => compileSelectSql(node, resolveSlot(node.field, scope, state), state),
  related_to: (node, scope, state) => compileRelatedToSql(node, scope, state),
  near: (node, scope, state) => compileNearSql(node, resolveSlot(node.field, scope, state), state),
  within_box: (node, scope, state) => compileWithinSql(node, resolveSlot(node.field, scope, state)),
  acl_read: (node, scope, state) => {
    const slot = resolveSlot({ column: 'ACL', path: [] }, scope, state);
    if (slot.kind === 'none') return true;
    if (slot.kind !== 'json') return false;
    const d = state.dialect;
    // `ACL$read` is NULL when everyone reads, so it stands for the `*` principal (always held, but checked).
    if (d.aclReadColumn && node.principals.includes('*')) return aclReadCond(columnRef(state, scope, ACL_READ_COLUMN), node.principals, d);
    // PostgreSQL keeps the principals as an array with `*` for everyone (D161): one overlap test.
    if (d.aclReadArray && node.principals.includes('*')) return d.aclReadArray.overlaps(columnRef(state, scope, ACL_READ_COLUMN), node.principals);
    // One JSON lookup per principal, each `= true` exactly: no array branch (an ACL grant is never an array).
    // `ACL IS NULL` first: no JSON parse for records without an ACL (an unset ACL is stored as NULL).
    const missing = sql`${columnRef(state, scope, 'ACL')} IS NULL`;
    return or([missing, ...node.principals.map((key) => d.jsonIs(d.jsonChild(d.jsonChild(slot.node, key), 'read'), 'true'))]);
  },
};

/** Compiles a where tree against a table scope into a condition (SQL or a folded constant). */
export function compileWhere(node: WhereNode, scope: TableScope, state: CompileState): Cond {
  const handler = HANDLERS[node.kind] as (node: WhereNode, scope: TableScope, state: CompileState) => Cond;
  return handler(node, scope, state);
}

function isTyped(v: Value, tag: string): boolean {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && (v as { __type?: string }).__type === tag;
}

/** The bound form of `value` in a scalar column, or null when its type can never match there. */
export function scalarParam(slot: Extract<Slot, { kind: 'scalar' }>, value: Value, state: CompileState): SqlParam | null {
  switch (slot.type) {
    case 'String':
    case 'Number':
      return typeof value === (slot.type === 'String' ? 'string' : 'number') ? param(value) : null;
    case 'Boolean':
      return typeof value === 'boolean' ? param(state.dialect.booleanParam(value)) : null;
    case 'Date':
      return isTyped(value, 'Date') ? param(dateMs(value as DateValue)) : null;
    case 'Pointer':
      return isTyped(value, 'Pointer') && (value as PointerValue).className === slot.targetClass ? param((value as PointerValue).objectId) : null;
  }
}

/**
 * A scalar column as equality tests compare it: a String column of the schema in code point order,
 * the collation its declared index is made with (PostgreSQL `COLLATE "C"`, D160; equality is the
 * same in either, only the index must match). objectId keeps its primary key's collation.
 */
function matchable(slot: Extract<Slot, { kind: 'scalar' }>, state: CompileState): Sql {
  return slot.type === 'String' && !slot.system ? state.dialect.binaryText(slot.expr) : slot.expr;
}

/** Equality with the array rule; null equals missing. */
export function equals(slot: Slot, value: Value, scope: TableScope, state: CompileState): Cond {
  switch (slot.kind) {
    case 'none':
      return value === null;
    case 'scalar': {
      if (value === null) return sql`${slot.expr} IS NULL`;
      const p = scalarParam(slot, value, state);
      return p === null ? false : sql`${matchable(slot, state)} = ${p}`;
    }
    case 'geo':
      if (value === null) return sql`${slot.lat} IS NULL`;
      if (!isTyped(value, 'GeoPoint')) return false;
      return sql`(${slot.lat} = ${param((value as GeoPointValue).latitude)} AND ${slot.lng} = ${param((value as GeoPointValue).longitude)})`;
    case 'json':
      return anyJson(state, slot, (n) => jsonEqualsOne(state, n, value), value === null || Array.isArray(value));
    case 'relation':
      if (!isTyped(value, 'Pointer') || (value as PointerValue).className !== slot.targetClass) return false;
      return relationContains(slot.column, scope, state, param((value as PointerValue).objectId));
  }
}

const SQL_OPS: Readonly<Record<Exclude<CompareOp, 'eq' | 'ne'>, string>> = { lt: '<', lte: '<=', gt: '>', gte: '>=' };

function ordered(slot: Slot, op: Exclude<CompareOp, 'eq' | 'ne'>, value: Value, state: CompileState): Cond {
  if (slot.kind === 'json') return anyJson(state, slot, (n) => jsonOrderOne(state, n, op, value));
  if (slot.kind !== 'scalar' || slot.type === 'Boolean' || slot.type === 'Pointer') return false;
  const p = scalarParam(slot, value, state);
  if (p === null) return false;
  const expr = slot.type === 'String' ? state.dialect.binaryText(slot.expr) : slot.expr;
  return sql`${expr} ${raw(SQL_OPS[op])} ${p}`;
}

function inList(slot: Slot, values: readonly Value[], scope: TableScope, state: CompileState): Cond {
  const hasNull = values.includes(null);
  if (slot.kind === 'none') return hasNull;
  if (slot.kind === 'json') {
    const selfOnArray = values.some((v) => v === null || Array.isArray(v));
    return anyJson(state, slot, (n) => jsonEqualsAny(state, n, values), selfOnArray);
  }
  if (slot.kind === 'scalar') {
    const params = values.filter((v) => v !== null).map((v) => scalarParam(slot, v, state)).filter((p): p is SqlParam => p !== null);
    const list = params.length === 0 ? false : sql`${matchable(slot, state)} IN (${join(params.map((p) => sql`${p}`), ', ')})`;
    return or([list, hasNull ? sql`${slot.expr} IS NULL` : false]);
  }
  if (slot.kind === 'geo') return or(values.map((v) => equals(slot, v, scope, state)));
  throw new Error('[svcbase] [query] $in on a Relation column is not a valid plan');
}

function existsCond(slot: Slot, exists: boolean, state: CompileState): Cond {
  switch (slot.kind) {
    case 'none':
      return !exists;
    case 'scalar':
      return sql`${slot.expr} ${raw(exists ? 'IS NOT NULL' : 'IS NULL')}`;
    case 'geo':
      return sql`${slot.lat} ${raw(exists ? 'IS NOT NULL' : 'IS NULL')}`;
    case 'json':
      return state.dialect.jsonIs(slot.node, exists ? 'present' : 'nullish');
    case 'relation':
      throw new Error('[svcbase] [query] $exists on a Relation column is not a valid plan');
  }
}
