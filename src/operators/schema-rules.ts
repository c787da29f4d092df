import { svcError } from '../core/errors.js';
import type { ColumnSchema, TableSchema } from '../query/plan.js';
import type { SchemaLimits } from './field-op.js';

/** Columns every table has; a field may not differ from them only in letter case either. */
const BUILT_IN_COLUMNS = ['objectId', 'createdAt', 'updatedAt'] as const;

/**
 * The naming and size rules `ensureColumns` enforces on every adapter, before it writes anything.
 *
 * Names are case-sensitive, but two names of one scope that differ only in letter case are refused
 * (SQL databases fold identifier case, so they would share a table or clash as columns): a class
 * against the other classes of its application (11080), a field against the other fields of its
 * class and the built-in columns (11081). System tables (`_User`, names starting with `_`) are
 * created by the service itself and neither count towards nor are refused by `maxTables`.
 */

/** Checks a table about to be created against the existing tables of its namespace. */
export function assertNewTable(className: string, existing: Iterable<string>, limits: SchemaLimits | undefined): void {
  const folded = className.toLowerCase();
  let counted = 0;
  for (const other of existing) {
    if (other.toLowerCase() === folded && other !== className) throw svcError('classNameCollision', className, other);
    if (!other.startsWith('_')) counted++;
  }
  if (limits && !className.startsWith('_') && counted >= limits.maxTables) throw svcError('tooManyTables', className, limits.maxTables);
}

/** Checks the columns `ensureColumns` is about to add to `schema` (null: a new table). */
export function assertNewColumns(
  className: string,
  schema: TableSchema | null,
  added: ReadonlyArray<readonly [string, ColumnSchema]>,
  limits: SchemaLimits | undefined,
): void {
  if (added.length === 0) return;
  const byFolded = new Map<string, string>();
  for (const name of BUILT_IN_COLUMNS) byFolded.set(name.toLowerCase(), name);
  for (const name of Object.keys(schema?.columns ?? {})) byFolded.set(name.toLowerCase(), name);
  for (const [name] of added) {
    const clash = byFolded.get(name.toLowerCase());
    if (clash !== undefined && clash !== name) throw svcError('fieldNameCollision', name, clash, className);
    byFolded.set(name.toLowerCase(), name);
  }
  // The ACL column is built in: it never counts against the application's column limit.
  const counted = (name: string) => name !== 'ACL';
  const before = Object.keys(schema?.columns ?? {}).filter(counted).length;
  const adding = added.filter(([name]) => counted(name));
  if (limits && adding.length > 0 && before + adding.length > limits.maxColumns) {
    throw svcError('tooManyColumns', adding[Math.max(0, limits.maxColumns - before)]![0], className, limits.maxColumns);
  }
}
