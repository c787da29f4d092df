import type { DateValue, FileValue, GeoPointValue, PointerValue, Value } from '../../core/values.js';
import type { CompareOp } from '../plan.js';
import { and, or, type Cond } from './cond.js';
import type { JsonNode } from './dialect.js';
import { param, raw, sql, type Sql } from './fragment.js';
import type { CompileState, JsonShape } from './scope.js';

/**
 * Predicates over one JSON value (a node), mirroring `equalsOne`/`compareSameType` of the
 * evaluator: the JSON type must match the operand's type, typed values are tagged objects.
 */

type TypedTag = 'Date' | 'Pointer' | 'GeoPoint' | 'File';

function tagOf(v: Value): TypedTag | 'Object' | 'Array' | null {
  if (Array.isArray(v)) return 'Array';
  if (typeof v !== 'object' || v === null) return null;
  const tag = (v as { __type?: string }).__type;
  return tag === 'Date' || tag === 'Pointer' || tag === 'GeoPoint' || tag === 'File' ? tag : 'Object';
}

/** The node is an object tagged `__type = tag`. */
export function isTagged(state: CompileState, node: JsonNode, tag: TypedTag): Cond {
  const d = state.dialect;
  return and([d.jsonIs(node, 'object'), sql`${d.jsonText(d.jsonChild(node, '__type'))} = ${param(tag)}`]);
}

/** The text of a node's `key` child. */
export function textAt(state: CompileState, node: JsonNode, key: string): Sql {
  return state.dialect.jsonText(state.dialect.jsonChild(node, key));
}

/** Equality of one node with `value` (no array rule). */
export function jsonEqualsOne(state: CompileState, node: JsonNode, value: Value): Cond {
  const d = state.dialect;
  if (value === null) return d.jsonIs(node, 'nullish');
  if (typeof value === 'boolean') return d.jsonIs(node, value ? 'true' : 'false');
  if (typeof value === 'number') return and([d.jsonIs(node, 'number'), sql`${d.jsonNumber(node)} = ${param(value)}`]);
  if (typeof value === 'string') return and([d.jsonIs(node, 'string'), sql`${d.jsonText(node)} = ${param(value)}`]);
  switch (tagOf(value)) {
    case 'Date':
      return and([isTagged(state, node, 'Date'), sql`${textAt(state, node, 'iso')} = ${param((value as DateValue).iso)}`]);
    case 'Pointer': {
      const p = value as PointerValue;
      return and([
        isTagged(state, node, 'Pointer'),
        sql`${textAt(state, node, 'className')} = ${param(p.className)}`,
        sql`${textAt(state, node, 'objectId')} = ${param(p.objectId)}`,
      ]);
    }
    case 'GeoPoint': {
      const g = value as GeoPointValue;
      return and([
        isTagged(state, node, 'GeoPoint'),
        sql`${d.jsonNumber(d.jsonChild(node, 'latitude'))} = ${param(g.latitude)}`,
        sql`${d.jsonNumber(d.jsonChild(node, 'longitude'))} = ${param(g.longitude)}`,
      ]);
    }
    case 'File':
      return and([isTagged(state, node, 'File'), sql`${textAt(state, node, 'url')} = ${param((value as FileValue).url)}`]);
    case 'Array':
      return and([d.jsonIs(node, 'array'), d.jsonEquals(node, JSON.stringify(value))]);
    default:
      return and([d.jsonIs(node, 'object'), d.jsonEquals(node, JSON.stringify(value))]);
  }
}

const SQL_OPS: Readonly<Record<Exclude<CompareOp, 'eq' | 'ne'>, string>> = { lt: '<', lte: '<=', gt: '>', gte: '>=' };

/** `$lt`/`$lte`/`$gt`/`$gte` of one node against a number, string or Date. */
export function jsonOrderOne(state: CompileState, node: JsonNode, op: Exclude<CompareOp, 'eq' | 'ne'>, value: Value): Cond {
  const d = state.dialect;
  const o = raw(` ${SQL_OPS[op]} `);
  if (typeof value === 'number') return and([d.jsonIs(node, 'number'), sql`${d.jsonNumber(node)}${o}${param(value)}`]);
  if (typeof value === 'string') return and([d.jsonIs(node, 'string'), sql`${d.binaryText(d.jsonText(node))}${o}${param(value)}`]);
  if (tagOf(value) === 'Date') {
    return and([isTagged(state, node, 'Date'), sql`${d.binaryText(textAt(state, node, 'iso'))}${o}${param((value as DateValue).iso)}`]);
  }
  return false;
}

/**
 * The array rule over a JSON slot: `test` holds for the value itself, or the value is an array
 * with an element for which it holds. Known shapes prune what cannot hold: an Object column has
 * no elements, and on an Array column `self` is false unless the test can hold for an array.
 */
export function anyJson(state: CompileState, slot: { node: JsonNode; shape: JsonShape }, test: (n: JsonNode) => Cond, selfOnArray = false): Cond {
  const { node, shape } = slot;
  const self = shape === 'array' && !selfOnArray ? false : test(node);
  if (shape === 'object') return self;
  const alias = state.alias('j');
  const { from, element } = state.dialect.jsonElements(node, alias);
  const inner = test(element);
  if (inner === false) return self;
  const exists = and([state.dialect.jsonIs(node, 'array'), sql`EXISTS (SELECT 1 FROM ${from} WHERE ${inner === true ? raw(state.dialect.trueLiteral) : inner})`]);
  return or([self, exists]);
}
