import type { ColumnSchema, TableSchema } from './plan.js';

/**
 * The schema entry of `column`, or undefined. Reads own properties only, so a column named like an
 * Object.prototype member (`constructor`, `toString`) is never mistaken for a schema entry.
 */
export function schemaColumn(schema: TableSchema | null | undefined, column: string): ColumnSchema | undefined {
  if (!schema || !Object.hasOwn(schema.columns, column)) return undefined;
  return schema.columns[column];
}
