import type { SubQuery, WhereNode } from '../plan.js';
import { schemaColumn } from '../schema-lookup.js';
import { and, condSql, not, or, type Cond } from './cond.js';
import { param, raw, sql, SqlParam, type Sql } from './fragment.js';
import { anyJson, isTagged } from './json-predicates.js';
import { columnRef, relationRef, resolveSlot, tableRef, type CompileState, type Slot, type TableScope } from './scope.js';
import { compileWhere } from './where-compiler.js';

/**
 * The records an inner query counts, as a SELECT of one column: matching its where, first `limit`
 * in default order (createdAt, objectId). Null when the inner table does not exist (empty set).
 */
function innerSelect(query: SubQuery, column: string, state: CompileState): Sql | null {
  const schema = state.view.schema(query.table);
  if (!schema) return null;
  const scope: TableScope = { alias: state.alias('t'), className: query.table, schema };
  const where = condSql(state.dialect, compileWhere(query.where, scope, state));
  const d = state.dialect;
  const order = sql`${d.orderTerm(columnRef(state, scope, 'createdAt'), false)}, ${d.orderTerm(d.binaryText(columnRef(state, scope, 'objectId')), false)}`;
  const selected = resolveSlot({ column, path: [] }, scope, state);
  const expr = selected.kind === 'scalar' ? selected.expr : raw('NULL');
  return sql`SELECT ${expr} AS ${raw(d.quoteIdent('v'))} FROM ${tableRef(state, query.table)} AS ${raw(scope.alias)} WHERE ${where} ORDER BY ${order} LIMIT ${param(query.limit)}`;
}

/** The record's Relation column `column` holds the id `related` (a parameter or an SQL expression). */
export function relationContains(column: string, scope: TableScope, state: CompileState, related: SqlParam | Sql): Cond {
  const r = state.alias('r');
  const owner = columnRef(state, scope, 'objectId');
  return sql`EXISTS (SELECT 1 FROM ${relationRef(state, scope.className, column)} AS ${raw(r)} WHERE ${raw(r)}.${raw(state.dialect.quoteIdent('owningId'))} = ${owner} AND ${raw(r)}.${raw(state.dialect.quoteIdent('relatedId'))} ${related instanceof SqlParam ? sql`= ${related}` : sql`IN (${related})`})`;
}

/** `$inQuery` / `$notInQuery` on a Pointer, Relation, Array or Object sub-key. */
export function compileInQuerySql(node: Extract<WhereNode, { kind: 'in_query' }>, slot: Slot, scope: TableScope, state: CompileState): Cond {
  const table = node.query.table;
  const inner = innerSelect(node.query, 'objectId', state);
  let c: Cond = false;
  if (inner !== null) {
    if (slot.kind === 'relation') c = slot.targetClass === table ? relationContains(slot.column, scope, state, inner) : false;
    else if (slot.kind === 'scalar') c = slot.type === 'Pointer' && slot.targetClass === table ? sql`${slot.expr} IN (${inner})` : false;
    else if (slot.kind === 'json') {
      const d = state.dialect;
      c = anyJson(state, slot, (n) =>
        and([
          isTagged(state, n, 'Pointer'),
          sql`${d.jsonText(d.jsonChild(n, 'className'))} = ${param(table)}`,
          sql`${d.jsonText(d.jsonChild(n, 'objectId'))} IN (${inner})`,
        ]),
      );
    }
  }
  return node.negate ? not(state.dialect, c) : c;
}

/** `$select` / `$dontSelect`: equal (array rule included) to the key value of an inner record. */
export function compileSelectSql(node: Extract<WhereNode, { kind: 'select' }>, slot: Slot, state: CompileState): Cond {
  const innerSchema = state.view.schema(node.query.table);
  const keyColumn = node.key.column;
  const keyType = keyColumn === 'objectId' ? 'String' : keyColumn === 'createdAt' || keyColumn === 'updatedAt' ? 'Date' : schemaColumn(innerSchema, keyColumn)?.type;
  const keyTarget = schemaColumn(innerSchema, keyColumn)?.targetClass;
  const inner = innerSelect(node.query, keyColumn, state);
  let c: Cond = false;
  if (inner !== null && keyType !== undefined) {
    const s = state.alias('s');
    const v = raw(`${s}.${state.dialect.quoteIdent('v')}`);
    const match = matchesDynamic(slot, keyType, keyTarget, v, state);
    if (match !== false) {
      c = sql`EXISTS (SELECT 1 FROM (${inner}) AS ${raw(s)} WHERE ${v} IS NOT NULL AND ${condSql(state.dialect, match)})`;
    }
  }
  return node.negate ? not(state.dialect, c) : c;
}

/** The field equals a value of column type `keyType` held in the SQL expression `v`. */
function matchesDynamic(slot: Slot, keyType: string, keyTarget: string | undefined, v: Sql, state: CompileState): Cond {
  const d = state.dialect;
  if (slot.kind === 'scalar') {
    if (slot.type !== keyType || (keyType === 'Pointer' && slot.targetClass !== keyTarget)) return false;
    return sql`${slot.expr} = ${v}`;
  }
  if (slot.kind !== 'json') return false;
  return anyJson(state, slot, (n) => {
    switch (keyType) {
      case 'String':
        return and([d.jsonIs(n, 'string'), sql`${d.jsonText(n)} = ${v}`]);
      case 'Number':
        return and([d.jsonIs(n, 'number'), sql`${d.jsonNumber(n)} = ${v}`]);
      case 'Boolean':
        return or([
          and([d.jsonIs(n, 'true'), sql`${v} = ${param(d.booleanParam(true))}`]),
          and([d.jsonIs(n, 'false'), sql`${v} = ${param(d.booleanParam(false))}`]),
        ]);
      case 'Pointer':
        return and([
          isTagged(state, n, 'Pointer'),
          sql`${d.jsonText(d.jsonChild(n, 'className'))} = ${param(keyTarget ?? '')}`,
          sql`${d.jsonText(d.jsonChild(n, 'objectId'))} = ${v}`,
        ]);
      default:
        return false; // a Date key never equals a value inside an Object or File column
    }
  });
}

/** `$relatedTo`: members of the owner's Relation column, when it targets this table. */
export function compileRelatedToSql(node: Extract<WhereNode, { kind: 'related_to' }>, scope: TableScope, state: CompileState): Cond {
  const column = schemaColumn(state.view.schema(node.owner.className), node.key);
  if (column?.type !== 'Relation' || column.targetClass !== scope.className) return false;
  const r = state.alias('r');
  const q = (name: string) => raw(`${r}.${state.dialect.quoteIdent(name)}`);
  return sql`EXISTS (SELECT 1 FROM ${relationRef(state, node.owner.className, node.key)} AS ${raw(r)} WHERE ${q('owningId')} = ${param(node.owner.objectId)} AND ${q('relatedId')} = ${columnRef(state, scope, 'objectId')})`;
}
