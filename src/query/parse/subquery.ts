import { isValidTableName } from '../../core/names.js';
import { decodePointer, type Json } from '../../core/wire-values.js';
import type { SubQuery, WhereNode } from '../plan.js';
import { schemaColumn } from '../schema-lookup.js';
import { childScope, countInnerQuery, queryError, type WhereScope } from './context.js';
import { columnTypeOf, resolveField, type FieldInfo } from './field.js';
import { isJsonObject, node } from './nodes.js';
import { parseWhereObject } from './where.js';

/**
 * Parses `{"className": "...", "where": {...}, "limit": n}` of $inQuery and $select. The inner
 * limit defaults to the application's inner-query default (100) and is clamped to its maximum
 * (1000); the inner records counted are the first ones in default order (createdAt, objectId).
 */
function parseSubQuery(json: Json, key: string, op: string, scope: WhereScope): SubQuery {
  if (!isJsonObject(json)) throw queryError(`key '${key}': ${op} needs {"className": ..., "where": {...}}.`);
  for (const k of Object.keys(json)) {
    if (k !== 'className' && k !== 'where' && k !== 'limit') throw queryError(`key '${key}': ${op} does not accept '${k}'.`);
  }
  const { className, where, limit } = json;
  if (typeof className !== 'string' || !isValidTableName(className)) {
    throw queryError(`key '${key}': ${op} needs a valid className.`);
  }
  countInnerQuery(scope);
  const limits = scope.ctx.settings.query;
  let innerLimit = limits.innerQueryDefaultLimit;
  if (limit !== undefined) {
    if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 0) {
      throw queryError(`key '${key}': ${op} limit must be a non-negative integer.`);
    }
    innerLimit = Math.min(limit, limits.innerQueryMaxLimit);
  }
  const inner = childScope(scope, className);
  const innerWhere = where === undefined ? parseWhereObject({}, inner) : parseWhereObject(where, inner);
  return Object.freeze({ table: className, where: innerWhere, limit: innerLimit });
}

/** `$inQuery` / `$notInQuery` on a Pointer, Relation or Array column (or an Object sub-key). */
export function parseInQuery(info: FieldInfo, operand: Json, negate: boolean, scope: WhereScope): WhereNode {
  const op = negate ? '$notInQuery' : '$inQuery';
  if (info.type !== null && !['Pointer', 'Relation', 'Array', 'Object'].includes(info.type)) {
    throw queryError(`key '${info.key}': ${op} needs a Pointer, Relation or Array column.`);
  }
  const query = parseSubQuery(operand, info.key, op, scope);
  return node(scope, { kind: 'in_query', field: info.field, negate, query });
}

const SELECT_KEY_TYPES = new Set(['String', 'Number', 'Boolean', 'Date', 'Pointer']);

/**
 * `$select` / `$dontSelect`: `{"query": {"className", "where", "limit"}, "key": "column"}`. The
 * key is a top-level String, Number, Boolean, Date or Pointer column (or objectId, createdAt,
 * updatedAt) of the inner table; the queried field is a top-level column.
 */
export function parseSelect(info: FieldInfo, operand: Json, negate: boolean, scope: WhereScope): WhereNode {
  const op = negate ? '$dontSelect' : '$select';
  if (!isJsonObject(operand) || typeof operand.key !== 'string' || !isJsonObject(operand.query)) {
    throw queryError(`key '${info.key}': ${op} needs {"query": {...}, "key": "column"}.`);
  }
  for (const k of Object.keys(operand)) if (k !== 'query' && k !== 'key') throw queryError(`key '${info.key}': ${op} does not accept '${k}'.`);
  if (info.field.path.length > 0) throw queryError(`key '${info.key}': ${op} needs a top-level column.`);
  if (info.type === 'Relation') throw queryError(`key '${info.key}': ${op} cannot test a Relation column.`);
  const query = parseSubQuery(operand.query, info.key, op, scope);
  const innerScope = childScope(scope, query.table);
  const keyInfo = resolveField(operand.key, innerScope);
  if (keyInfo.field.path.length > 0) throw queryError(`key '${info.key}': ${op} key '${operand.key}' must be a top-level column.`);
  const keyType = columnTypeOf(innerScope, keyInfo.field.column);
  if (keyType !== null && !SELECT_KEY_TYPES.has(keyType)) {
    throw queryError(`key '${info.key}': ${op} key '${operand.key}' must be a String, Number, Boolean, Date or Pointer column.`);
  }
  if (keyType === 'Date' && info.type === 'Array') {
    throw queryError(`key '${info.key}': ${op} with a Date key cannot test an Array column.`);
  }
  return node(scope, { kind: 'select', field: info.field, negate, query, key: keyInfo.field });
}

/** Top-level `{"$relatedTo": {"object": Pointer, "key": "relationColumn"}}`. */
export function parseRelatedTo(operand: Json, scope: WhereScope): WhereNode {
  if (!isJsonObject(operand) || !isJsonObject(operand.object) || typeof operand.key !== 'string') {
    throw queryError('$relatedTo needs {"object": Pointer, "key": "column"}.');
  }
  for (const k of Object.keys(operand)) if (k !== 'object' && k !== 'key') throw queryError(`$relatedTo does not accept '${k}'.`);
  if (operand.object.__type !== 'Pointer') throw queryError('$relatedTo object must be a Pointer.');
  countInnerQuery(scope);
  const owner = Object.freeze(decodePointer(operand.object, '$relatedTo.object'));
  const ownerScope = childScope(scope, owner.className);
  const keyInfo = resolveField(operand.key, ownerScope);
  if (keyInfo.system || keyInfo.field.path.length > 0) throw queryError(`$relatedTo key '${operand.key}' must be a Relation column.`);
  const column = schemaColumn(ownerScope.schema, keyInfo.field.column);
  if (column && column.type !== 'Relation') throw queryError(`$relatedTo key '${operand.key}' is not a Relation column.`);
  return node(scope, { kind: 'related_to', owner, key: keyInfo.field.column });
}
