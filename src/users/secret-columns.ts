import { svcError } from '../core/errors.js';
import type { StoredRecord } from '../core/values.js';
import type { Json } from '../core/wire-values.js';
import { withoutPassword } from './user-output.js';
import { SESSION_CLASS, USER_CLASS } from './user-table.js';

/** Columns no query may name: their values must not leak through filters, order or statistics. */
export const SECRET_COLUMNS: ReadonlySet<string> = new Set(['password']);

/** List parameters holding comma lists of column names. */
const COLUMN_LISTS = ['order', 'keys', 'groupby', 'sum', 'average', 'max', 'min', 'include'];

/**
 * Refuses (102) a list query that names a secret column anywhere: a where key at any depth
 * (including inner `$inQuery`/`$select` queries and `$select`'s `key`), `having`, or a column list
 * (`order`, `keys`, `groupby`, aggregates). Without this, `where={"password":{"$regex":"^scrypt\\$..."}}`
 * would reveal a hash one character at a time. Over-approximates: a `password` key is refused even
 * where it would name another table's column.
 */
export function assertNoSecretColumns(query: URLSearchParams): void {
  for (const name of COLUMN_LISTS) {
    for (const text of [...query.getAll(name), ...query.getAll(`${name}[]`)]) {
      for (const term of text.split(',')) {
        const column = term.trim().replace(/^[-+]/, '').split('.')[0]!.split('[')[0]!;
        if (SECRET_COLUMNS.has(column)) throw refused(column);
      }
    }
  }
  for (const name of ['where', 'having']) {
    const text = query.get(name);
    if (text === null) continue;
    let json: Json;
    try {
      json = JSON.parse(text) as Json;
    } catch {
      continue; // the query parser reports malformed JSON itself
    }
    scan(json);
  }
}

function scan(value: Json): void {
  const stack: Json[] = [value];
  while (stack.length > 0) {
    const v = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (Array.isArray(v)) {
      stack.push(...v);
      continue;
    }
    for (const [key, child] of Object.entries(v)) {
      if (SECRET_COLUMNS.has(key.split('.')[0]!)) throw refused(key);
      if (key === 'key' && typeof child === 'string' && SECRET_COLUMNS.has(child.split('.')[0]!)) throw refused(child);
      stack.push(child);
    }
  }
}

function refused(key: string) {
  return svcError('invalidQueryKey', `invalid key '${key}' for find: this column cannot be queried.`);
}

/**
 * The record hook of user listings and `include` expansion: `_User` records lose `password`;
 * `_Session` records never show.
 */
export function hideSecrets(className: string, record: StoredRecord): StoredRecord | null {
  if (className === USER_CLASS) return withoutPassword(record);
  if (className === SESSION_CLASS) return null;
  return record;
}
