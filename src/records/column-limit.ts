import { svcError } from '../core/errors.js';
import type { ColumnSchema, TableSchema } from '../query/plan.js';

/**
 * Most columns one table may hold (system columns not counted). SQLite refuses a table wider than
 * 2000 physical columns (a GeoPoint takes two), which used to surface as a 500; every adapter now
 * answers 11110 at the same width, and nothing is written.
 */
export const MAX_TABLE_COLUMNS = 500;

/** Throws 11110 when adding `columns` would make the table wider than {@link MAX_TABLE_COLUMNS}. */
export function assertColumnLimit(className: string, schema: TableSchema | null, columns: Readonly<Record<string, ColumnSchema>>): void {
  const existing = schema?.columns ?? {};
  let width = Object.keys(existing).length;
  for (const name of Object.keys(columns)) if (!Object.hasOwn(existing, name)) width++;
  if (width > MAX_TABLE_COLUMNS) throw svcError('tooManyColumns', className, MAX_TABLE_COLUMNS);
}
