import type { ColumnSchema, TableSchema } from '../../query/plan.js';

/** Schemas this module froze (deeply): they may be handed out again as they are. */
const FROZEN = new WeakSet<TableSchema>();

/**
 * A deep-frozen copy of a schema: adapters cache and hand out schemas that no caller can change. A
 * schema this function already froze is returned as it is.
 */
export function freezeSchema(schema: TableSchema): TableSchema {
  if (FROZEN.has(schema)) return schema;
  const columns: Record<string, ColumnSchema> = {};
  for (const [name, column] of Object.entries(schema.columns)) columns[name] = Object.freeze({ ...column });
  const indexes = schema.indexes.map((i) => Object.freeze({ ...i, columns: Object.freeze([...i.columns]) }));
  const frozen = Object.freeze({ className: schema.className, columns: Object.freeze(columns), indexes: Object.freeze(indexes) });
  FROZEN.add(frozen);
  return frozen;
}
