import { svcError } from '../../core/errors.js';
import { isValidFieldName } from '../../core/names.js';
import type { OrderTerm, Projection } from '../plan.js';
import { queryError, SYSTEM_FIELDS, type WhereScope } from './context.js';
import { columnTypeOf } from './field.js';

/** Largest `skip` accepted. */
export const MAX_SKIP = 10_000_000;
const MAX_ORDER_TERMS = 16;
const MAX_KEYS = 200;
const SORTABLE = new Set(['String', 'Number', 'Date']);

/** Splits a comma list (`a, b,,c` → `a`,`b`,`c`), also reading the SDK's repeated `name[]` form. */
export function commaList(params: URLSearchParams, name: string): string[] {
  const plain = params.getAll(name);
  const repeated = params.getAll(`${name}[]`);
  if (plain.length === 0 && repeated.length === 0) return [];
  const out: string[] = [];
  for (const text of plain.length === 0 ? repeated : repeated.length === 0 ? plain : [...plain, ...repeated]) {
    for (const part of text.split(',')) {
      const item = part.trim();
      if (item.length > 0) out.push(item);
    }
  }
  return out;
}

/** A non-negative integer parameter; `undefined` when absent or empty. */
export function intParam(params: URLSearchParams, name: string, max: number): number | undefined {
  const text = params.get(name);
  if (text === null || text.trim() === '') return undefined;
  if (!/^\d+$/.test(text.trim())) throw queryError(`${name} must be a non-negative integer, got '${text}'.`);
  const value = Number(text.trim());
  if (value > max) throw queryError(`${name} must be at most ${max}.`);
  return value;
}

/** `limit`: default and maximum from the application's settings; larger values are clamped. */
export function parseLimit(params: URLSearchParams, defaultLimit: number, maxLimit: number): number {
  const text = params.get('limit');
  if (text === null || text.trim() === '') return defaultLimit;
  if (!/^\d+$/.test(text.trim())) throw queryError(`limit must be a non-negative integer, got '${text}'.`);
  return Math.min(Number(text.trim()), maxLimit);
}

/** A boolean flag parameter (`1`/`true`, `0`/`false`). */
export function flagParam(params: URLSearchParams, name: string): boolean {
  const text = params.get(name);
  if (text === null) return false;
  const t = text.trim().toLowerCase();
  if (t === '1' || t === 'true') return true;
  if (t === '0' || t === 'false' || t === '') return false;
  throw queryError(`${name} must be 1/true or 0/false, got '${text}'.`);
}

/**
 * `order=score,-name`: ascending unless prefixed with `-`. Only String, Number and Date columns
 * (and objectId, createdAt, updatedAt) sort; others throw 11060 `notSortable`. Unknown columns
 * hold no values anywhere and are dropped (they cannot change the order).
 */
export function parseOrder(terms: readonly string[], scope: WhereScope): OrderTerm[] {
  if (terms.length > MAX_ORDER_TERMS) throw queryError(`order has more than ${MAX_ORDER_TERMS} terms.`);
  const out: OrderTerm[] = [];
  for (const term of terms) {
    const descending = term.startsWith('-');
    const name = descending || term.startsWith('+') ? term.slice(1) : term;
    if (!Object.hasOwn(SYSTEM_FIELDS, name) && !isValidFieldName(name)) {
      if (/^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z0-9_-]+)+$/.test(name)) throw svcError('notSortable', name);
      throw queryError(`invalid key '${name}' in order.`);
    }
    const type = columnTypeOf(scope, name);
    if (type === null) continue;
    if (!SORTABLE.has(type)) throw svcError('notSortable', name);
    out.push(Object.freeze({ field: Object.freeze({ column: name, path: Object.freeze([]) }), descending }));
  }
  return out;
}

/**
 * `keys=a,b` returns only those columns (plus objectId, createdAt, updatedAt); `keys=-a,-b`
 * returns all but those. A dotted key selects its whole top-level column.
 */
export function parseKeys(keys: readonly string[], alsoInclude: readonly string[]): Projection {
  if (keys.length === 0) return Object.freeze({ kind: 'all' });
  if (keys.length > MAX_KEYS) throw queryError(`keys has more than ${MAX_KEYS} names.`);
  const excluded = keys.filter((k) => k.startsWith('-'));
  if (excluded.length > 0 && excluded.length !== keys.length) throw queryError('keys cannot mix included and -excluded names.');
  const columns = new Set<string>();
  for (const key of keys) {
    const name = (key.startsWith('-') ? key.slice(1) : key).split('.')[0]!;
    if (!Object.hasOwn(SYSTEM_FIELDS, name) && !isValidFieldName(name)) throw queryError(`invalid key '${key}' in keys.`);
    if (!Object.hasOwn(SYSTEM_FIELDS, name)) columns.add(name);
  }
  if (excluded.length > 0) return Object.freeze({ kind: 'exclude', columns: Object.freeze([...columns]) });
  for (const column of alsoInclude) columns.add(column);
  return Object.freeze({ kind: 'include', columns: Object.freeze([...columns]) });
}
