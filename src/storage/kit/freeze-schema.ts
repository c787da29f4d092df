import type { ColumnSchema, TableSchema } from '../../query/plan.js';

/** A deep-frozen copy of a schema: adapters cache and hand out schemas that no caller can change. */
export function freezeSchema(schema: TableSchema): TableSchema {
  const columns: Record<string, ColumnSchema> = {};
  for (const [name, column] of Object.entries(schema.columns)) columns[name] = Object.freeze({ ...column });
  const indexes = schema.indexes.map((i) => Object.freeze({ ...i, columns: Object.freeze([...i.columns]) }));
  return Object.freeze({ className: schema.className, columns: Object.freeze(columns), indexes: Object.freeze(indexes) });
}
