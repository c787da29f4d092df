import type { PointerValue, StoredRecord, Value } from '../../../core/values.js';
import type { SubQuery, WhereNode } from '../../plan.js';
import { schemaColumn } from '../../schema-lookup.js';
import { contextFor, type EvalContext, type EvalEnv, type Predicate, type ValueTest } from '../context.js';
import { anyValue, compileGetter } from '../field.js';
import { DEFAULT_SORT, filterSortAndPage } from '../order.js';
import { compileFilter } from '../where.js';

/**
 * The records an inner query counts: those matching its where, first `limit` of them in default
 * order (createdAt, objectId). Computed once per compiled predicate, on first use.
 */
export function innerRecords(query: SubQuery, env: EvalEnv): StoredRecord[] {
  const filter = compileFilter(query.where, contextFor(env, query.table));
  return filterSortAndPage(env.records(query.table), filter, DEFAULT_SORT, 0, query.limit);
}

function lazy<T>(make: () => T): () => T {
  let value: T | undefined;
  let done = false;
  return () => {
    if (!done) (value = make()), (done = true);
    return value as T;
  };
}

/**
 * `$inQuery` / `$notInQuery`: a Pointer (or an array element Pointer) to a record the inner query
 * counts; on a Relation column, any related record it counts.
 */
export function compileInQuery(node: Extract<WhereNode, { kind: 'in_query' }>, ctx: EvalContext): Predicate {
  const { env } = ctx;
  const table = node.query.table;
  const ids = lazy(() => new Set(innerRecords(node.query, env).map((r) => r.objectId)));
  const negate = node.negate;
  const column = node.field.path.length === 0 ? schemaColumn(ctx.schema, node.field.column) : undefined;
  if (column?.type === 'Relation') {
    if (column.targetClass !== table) return () => negate;
    const { className } = ctx;
    const col = node.field.column;
    return (r) => {
      const set = ids();
      for (const id of env.relationMembers(className, r.objectId, col)) if (set.has(id)) return !negate;
      return negate;
    };
  }
  const get = compileGetter(node.field);
  const test = anyValue((v) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
    const p = v as PointerValue;
    return p.__type === 'Pointer' && p.className === table && ids().has(p.objectId);
  });
  return (r) => test(get(r)) !== negate;
}

/** A set of values for membership tests with the query language's equality. */
function valueSet(values: readonly Value[]): ValueTest {
  const keys = new Set<string | number | boolean>();
  for (const v of values) {
    if (typeof v !== 'object') keys.add(v);
    else if (v !== null && !Array.isArray(v)) {
      const t = v as { __type?: string; iso?: string; className?: string; objectId?: string };
      if (t.__type === 'Date') keys.add(`\u0000D${t.iso}`);
      else if (t.__type === 'Pointer') keys.add(`\u0000P${t.className}\u0000${t.objectId}`);
    }
  }
  return (v) => {
    if (v === undefined || v === null) return false;
    if (typeof v !== 'object') return keys.has(v);
    if (Array.isArray(v)) return false;
    const t = v as { __type?: string; iso?: string; className?: string; objectId?: string };
    if (t.__type === 'Date') return keys.has(`\u0000D${t.iso}`);
    if (t.__type === 'Pointer') return keys.has(`\u0000P${t.className}\u0000${t.objectId}`);
    return false;
  };
}

/**
 * `$select` / `$dontSelect`: the field equals (array rule included) the `key` value of some record
 * the inner query counts; null key values are ignored.
 */
export function compileSelect(node: Extract<WhereNode, { kind: 'select' }>, ctx: EvalContext): Predicate {
  const keyGet = compileGetter(node.key);
  const set = lazy(() => valueSet(innerRecords(node.query, ctx.env).map(keyGet).filter((v): v is Value => v !== undefined && v !== null)));
  const get = compileGetter(node.field);
  const negate = node.negate;
  const test = anyValue((v) => set()(v));
  return (r) => test(get(r)) !== negate;
}

/** `$relatedTo`: records related to `owner` through its Relation column `key`. */
export function compileRelatedTo(node: Extract<WhereNode, { kind: 'related_to' }>, ctx: EvalContext): Predicate {
  const { env, className } = ctx;
  const column = schemaColumn(env.schema(node.owner.className), node.key);
  if (column?.type !== 'Relation' || column.targetClass !== className) return () => false;
  const members = lazy(() => env.relationMembers(node.owner.className, node.owner.objectId, node.key));
  return (r) => members().has(r.objectId);
}
