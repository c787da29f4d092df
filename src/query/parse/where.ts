import type { Json } from '../../core/wire-values.js';
import { ALL_RECORDS, type CompareOp, type WhereNode } from '../plan.js';
import { compileSafeRegex } from '../regex/safe-regex.js';
import { svcError } from '../../core/errors.js';
import { childScope, queryError, type WhereScope } from './context.js';
import { conjunction, isJsonObject, node, type JsonObject } from './nodes.js';
import { resolveField, type FieldInfo } from './field.js';
import { parseNear, parseWithin } from './geo.js';
import { decodeListOperand, decodeOperand, decodeRangeOperand } from './operand.js';
import { parseInQuery, parseRelatedTo, parseSelect } from './subquery.js';


const COMPARE_OPS: Readonly<Record<string, CompareOp>> = {
  $eq: 'eq',
  $ne: 'ne',
  $lt: 'lt',
  $lte: 'lte',
  $gt: 'gt',
  $gte: 'gte',
};

const GEO_SIBLINGS = new Set(['$maxDistanceInMiles', '$maxDistanceInKilometers', '$maxDistanceInRadians', '$maxDistance']);

/** Parses a where object (`{"score":{"$gt":1},"$or":[...]}`) into a node tree. */
export function parseWhereObject(json: Json, scope: WhereScope): WhereNode {
  if (!isJsonObject(json)) throw queryError('where must be a JSON object.');
  const nodes: WhereNode[] = [];
  for (const [key, value] of Object.entries(json)) {
    if (key === '$or' || key === '$and') nodes.push(parseLogical(key, value, scope));
    else if (key === '$relatedTo' && !scope.having) nodes.push(parseRelatedTo(value, scope));
    else if (key.startsWith('$')) throw queryError(`unknown operator '${key}' in where.`);
    else nodes.push(parseFieldCondition(key, value, scope));
  }
  return conjunction(scope, nodes);
}

function parseLogical(key: '$or' | '$and', value: Json, scope: WhereScope): WhereNode {
  if (!Array.isArray(value) || value.length === 0) throw queryError(`${key} needs a non-empty array of where objects.`);
  const inner = childScope(scope, scope.className);
  const nodes = value.map((item) => parseWhereObject(item, inner));
  if (key === '$and') return conjunction(scope, nodes);
  if (nodes.length === 1) return nodes[0]!;
  if (nodes.some((n) => n.kind === 'all_records')) return ALL_RECORDS;
  return node(scope, { kind: 'or', nodes: Object.freeze(nodes) });
}

function parseFieldCondition(key: string, value: Json, scope: WhereScope): WhereNode {
  const info = resolveField(key, scope);
  if (isJsonObject(value) && Object.keys(value).some((k) => k.startsWith('$'))) {
    return parseConstraints(info, value, scope);
  }
  return compare(info, 'eq', value, scope);
}

function compare(info: FieldInfo, op: CompareOp, json: Json, scope: WhereScope): WhereNode {
  const value = op === 'eq' || op === 'ne' ? decodeOperand(json, info, scope) : decodeRangeOperand(json, info, `$${op}`, scope);
  if (info.type === 'Relation') {
    const isPointer = typeof value === 'object' && value !== null && (value as { __type?: unknown }).__type === 'Pointer';
    if ((op !== 'eq' && op !== 'ne') || !isPointer) throw relationError(info);
  }
  return node(scope, { kind: 'compare', field: info.field, op, value });
}

function relationError(info: FieldInfo): Error {
  return queryError(`key '${info.key}' is a Relation: compare it with a Pointer, $ne, $inQuery or $notInQuery.`);
}

function parseConstraints(info: FieldInfo, constraints: JsonObject, scope: WhereScope): WhereNode {
  const nodes: WhereNode[] = [];
  const keys = Object.keys(constraints);
  const plain = keys.find((k) => !k.startsWith('$'));
  if (plain !== undefined) throw queryError(`key '${info.key}': '${plain}' mixed with operators.`);
  const relationOk = new Set(['$eq', '$ne', '$inQuery', '$notInQuery']);
  for (const op of keys) {
    const operand = constraints[op]!;
    if (info.type === 'Relation' && !relationOk.has(op)) throw relationError(info);
    if (scope.having && !['$eq', '$ne', '$lt', '$lte', '$gt', '$gte', '$in', '$nin', '$exists', '$regex', '$options'].includes(op)) {
      throw queryError(`having: operator '${op}' is not allowed on result column '${info.key}'.`);
    }
    const compareOp = COMPARE_OPS[op];
    if (compareOp) {
      nodes.push(compare(info, compareOp, operand, scope));
      continue;
    }
    switch (op) {
      case '$in':
      case '$nin':
        nodes.push(node(scope, { kind: 'in', field: info.field, negate: op === '$nin', values: Object.freeze(decodeListOperand(operand, info, op, scope)) }));
        break;
      case '$all':
        nodes.push(node(scope, { kind: 'contains_all', field: info.field, values: Object.freeze(decodeListOperand(operand, info, op, scope)) }));
        break;
      case '$exists':
        if (typeof operand !== 'boolean') throw queryError(`key '${info.key}': $exists needs true or false.`);
        nodes.push(node(scope, { kind: 'exists', field: info.field, exists: operand }));
        break;
      case '$regex':
        nodes.push(parseRegexConstraint(info, operand, constraints.$options, scope));
        break;
      case '$options':
        if (!Object.hasOwn(constraints, '$regex')) throw queryError(`key '${info.key}': $options needs $regex.`);
        break;
      case '$inQuery':
      case '$notInQuery':
        nodes.push(parseInQuery(info, operand, op === '$notInQuery', scope));
        break;
      case '$select':
      case '$dontSelect':
        nodes.push(parseSelect(info, operand, op === '$dontSelect', scope));
        break;
      case '$nearSphere':
        nodes.push(parseNear(info, operand, constraints, scope));
        break;
      case '$within':
        nodes.push(parseWithin(info, operand, scope));
        break;
      default:
        if (GEO_SIBLINGS.has(op)) {
          if (!Object.hasOwn(constraints, '$nearSphere')) throw queryError(`key '${info.key}': ${op} needs $nearSphere.`);
          break;
        }
        throw queryError(`key '${info.key}': unknown operator '${op}'.`);
    }
  }
  return conjunction(scope, nodes);
}

function parseRegexConstraint(info: FieldInfo, pattern: Json, options: Json | undefined, scope: WhereScope): WhereNode {
  if (!scope.ctx.settings.features.regex) throw svcError('regexNotInPlan');
  if (typeof pattern !== 'string') throw queryError(`key '${info.key}': $regex needs a string.`);
  if (options !== undefined && typeof options !== 'string') throw queryError(`key '${info.key}': $options needs a string.`);
  const compiled = compileSafeRegex(pattern, options ?? '', info.key);
  return node(scope, { kind: 'regex', field: info.field, pattern: compiled.pattern, flags: compiled.flags });
}

