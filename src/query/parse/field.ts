import { FORBIDDEN_KEYS, isValidFieldName } from '../../core/names.js';
import type { ColumnType } from '../../core/values.js';
import type { FieldRef } from '../plan.js';
import { schemaColumn } from '../schema-lookup.js';
import { queryError, secretColumnError, SYSTEM_FIELDS, type WhereScope } from './context.js';

/** A where key resolved against the schema. */
export interface FieldInfo {
  readonly key: string;
  readonly field: FieldRef;
  /** Type of the column (not of the nested value for dotted keys); null when the column is unknown. */
  readonly type: ColumnType | null;
  readonly targetClass: string | undefined;
  /** True for objectId, createdAt, updatedAt. */
  readonly system: boolean;
}

const SUBKEY = /^[A-Za-z0-9_][A-Za-z0-9_-]{0,127}$/;
const MAX_PATH = 8;

/**
 * Resolves a where key: `column` or `column.sub.key` (dotted keys reach into Object columns).
 * Throws 102 naming the key when it is not a valid name or dots into a non-Object column.
 */
export function resolveField(key: string, scope: WhereScope): FieldInfo {
  if (scope.having) return resolveResultField(key, scope);
  const [column = '', ...path] = key.split('.');
  const system = Object.hasOwn(SYSTEM_FIELDS, column);
  if (!system && !isValidFieldName(column)) throw queryError(`invalid key '${key}' for find.`);
  if (scope.ctx.isSecretColumn?.(scope.className, column)) throw secretColumnError(column);
  if (path.length > MAX_PATH) throw queryError(`key '${key}' is nested deeper than ${MAX_PATH} levels.`);
  for (const segment of path) {
    if (!SUBKEY.test(segment) || FORBIDDEN_KEYS.has(segment)) throw queryError(`invalid key '${key}' for find.`);
  }
  const entry = system ? undefined : schemaColumn(scope.schema, column);
  const type = system ? SYSTEM_FIELDS[column]! : (entry?.type ?? null);
  if (path.length > 0 && type !== null && type !== 'Object') {
    throw queryError(`key '${key}': only Object columns have sub-keys, '${column}' is a ${type} column.`);
  }
  return { key, field: Object.freeze({ column, path: Object.freeze(path) }), type, targetClass: entry?.targetClass, system };
}

/** The type of a top-level column (system fields included), or null when unknown. */
export function columnTypeOf(scope: Pick<WhereScope, 'schema'>, column: string): ColumnType | null {
  if (Object.hasOwn(SYSTEM_FIELDS, column)) return SYSTEM_FIELDS[column]!;
  return schemaColumn(scope.schema, column)?.type ?? null;
}

/**
 * A `having` key: a result column of the statistics query (its synthetic schema), matched
 * case-insensitively like the service does (`_sumscore` names `_sumScore`).
 */
function resolveResultField(key: string, scope: WhereScope): FieldInfo {
  const columns = scope.schema?.columns ?? {};
  const name = Object.hasOwn(columns, key) ? key : Object.keys(columns).find((c) => c.toLowerCase() === key.toLowerCase());
  if (name === undefined) throw queryError(`having: '${key}' is not a result column of this statistics query.`);
  const entry = schemaColumn(scope.schema, name)!;
  return { key, field: Object.freeze({ column: name, path: Object.freeze([]) }), type: entry.type, targetClass: entry.targetClass, system: false };
}
