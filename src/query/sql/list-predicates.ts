import type { DateValue, PointerValue, Value } from '../../core/values.js';
import { and, or, type Cond } from './cond.js';
import type { JsonNode } from './dialect.js';
import { param, raw, sql, type Sql } from './fragment.js';
import { isTagged, jsonEqualsOne, textAt } from './json-predicates.js';
import type { CompileState, JsonShape } from './scope.js';
import { merged } from '../../core/copy.js';

/**
 * `$in`/`$nin`/`$all` over JSON nodes with long lists (D10). Compiled one term per value, a
 * 1,000-value list is a 1,000-term expression that SQLite parses slowly and deeply. So values
 * sharing one comparison (strings; numbers; Dates by `iso`; Pointers of one class by `objectId`)
 * are bound as ONE JSON array parameter and compared through a join with it, once a group holds
 * LIST_THRESHOLD values; the others stay one term each (short lists compile exactly as before).
 * The comparison per value is the one `jsonEqualsOne` makes, so results match the evaluator.
 */
export const LIST_THRESHOLD = 8;

interface ListGroup {
  /** What the node must be for any value of the group to equal it. */
  readonly guard: (state: CompileState, node: JsonNode) => Cond;
  /** The part of the node compared with the bound values. */
  readonly key: (state: CompileState, node: JsonNode) => Sql;
  readonly kind: 'text' | 'number';
  readonly keys: Array<string | number>;
}

type GroupShape = Omit<ListGroup, 'keys'>;

const STRINGS: GroupShape = { kind: 'text', guard: (s, n) => s.dialect.jsonIs(n, 'string'), key: (s, n) => s.dialect.jsonText(n) };
const NUMBERS: GroupShape = { kind: 'number', guard: (s, n) => s.dialect.jsonIs(n, 'number'), key: (s, n) => s.dialect.jsonNumber(n) };
const DATES: GroupShape = { kind: 'text', guard: (s, n) => isTagged(s, n, 'Date'), key: (s, n) => textAt(s, n, 'iso') };

function pointersOf(className: string): GroupShape {
  return {
    kind: 'text',
    guard: (s, n) => and([isTagged(s, n, 'Pointer'), sql`${textAt(s, n, 'className')} = ${param(className)}`]),
    key: (s, n) => textAt(s, n, 'objectId'),
  };
}

/** The group a value can be bound in (its id, shape and bound key), or null: compared on its own. */
function groupOf(value: Value): { id: string; shape: () => GroupShape; key: string | number } | null {
  if (typeof value === 'string') return { id: 's', shape: () => STRINGS, key: value };
  if (typeof value === 'number') return { id: 'n', shape: () => NUMBERS, key: value };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const tag = (value as { __type?: unknown }).__type;
  if (tag === 'Date') return { id: 'd', shape: () => DATES, key: (value as DateValue).iso };
  if (tag !== 'Pointer') return null;
  const { className, objectId } = value as PointerValue;
  return { id: `p:${className}`, shape: () => pointersOf(className), key: objectId };
}

/** Splits values into bound groups (LIST_THRESHOLD values or more) and the rest. */
function groupValues(values: readonly Value[]): { groups: ListGroup[]; rest: Value[] } {
  const byId = new Map<string, { shape: () => GroupShape; members: Value[]; keys: Array<string | number> }>();
  const rest: Value[] = [];
  for (const value of values) {
    const group = groupOf(value);
    if (!group) {
      rest.push(value);
      continue;
    }
    let entry = byId.get(group.id);
    if (!entry) byId.set(group.id, (entry = { shape: group.shape, members: [], keys: [] }));
    entry.members.push(value);
    entry.keys.push(group.key);
  }
  const groups: ListGroup[] = [];
  for (const entry of byId.values()) {
    if (entry.members.length >= LIST_THRESHOLD) groups.push(merged(entry.shape(), { keys: entry.keys }));
    else rest.push(...entry.members);
  }
  return { groups, rest };
}

/** The node equals one of `values` (no array rule: see `anyJson`). */
export function jsonEqualsAny(state: CompileState, node: JsonNode, values: readonly Value[]): Cond {
  const { groups, rest } = groupValues(values);
  const d = state.dialect;
  return or([
    ...groups.map((g) => {
      const { from, value } = d.boundValues(g.kind, JSON.stringify(g.keys), state.alias('v'));
      return and([g.guard(state, node), sql`${g.key(state, node)} IN (SELECT ${value} FROM ${from})`]);
    }),
    ...rest.map((v) => jsonEqualsOne(state, node, v)),
  ]);
}

/** Every listed value has an equal element (`$all`); never for an empty list or a non-array. */
export function jsonContainsAll(state: CompileState, slot: { node: JsonNode; shape: JsonShape }, values: readonly Value[]): Cond {
  if (values.length === 0 || slot.shape === 'object') return false;
  const d = state.dialect;
  const node = slot.node;
  const hasElement = (test: (element: JsonNode) => Cond): Cond => {
    const { from, element } = d.jsonElements(node, state.alias('j'));
    const cond = test(element);
    if (cond === false) return false;
    return sql`EXISTS (SELECT 1 FROM ${from} WHERE ${cond === true ? raw(d.trueLiteral) : cond})`;
  };
  const { groups, rest } = groupValues(values);
  return and([
    // An Array column is an array or NULL (no elements): no type guard needed.
    slot.shape === 'array' ? true : d.jsonIs(node, 'array'),
    ...groups.map((g) => {
      // No bound value lacks an equal element.
      const { from, value } = d.boundValues(g.kind, JSON.stringify(g.keys), state.alias('v'));
      const found = hasElement((element) => and([g.guard(state, element), sql`${g.key(state, element)} = ${value}`]));
      return found === false ? false : sql`NOT EXISTS (SELECT 1 FROM ${from} WHERE ${d.not(found === true ? raw(d.trueLiteral) : found)})`;
    }),
    ...rest.map((v) => hasElement((element) => jsonEqualsOne(state, element, v))),
  ]);
}
