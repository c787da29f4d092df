import { configError } from '../../core/errors.js';
import type { IndexSpec, TableSchema } from '../../query/plan.js';

const INDEX_NAME = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;
/** Column types an index may cover: scalars whose equality every adapter agrees on. */
const INDEXABLE = new Set(['String', 'Number', 'Boolean', 'Date', 'Pointer']);
const BUILT_IN: Readonly<Record<string, string>> = { objectId: 'String', createdAt: 'Date', updatedAt: 'Date' };

/**
 * Checks a declared index against the table schema; shared by every adapter so they refuse the same
 * specs. Returns the existing index of that name when the spec is identical (creation is a no-op).
 * Throws a configuration error for a missing table, an unknown or non-scalar column, a bad name, or a
 * different spec under an existing name.
 */
export function checkIndexSpec(scope: string, schema: TableSchema | null, index: IndexSpec): IndexSpec | null {
  if (!schema) throw configError(scope, `createIndex: table does not exist (call ensureColumns first)`);
  if (!INDEX_NAME.test(index.name)) throw configError(scope, `createIndex: invalid index name '${index.name}'`);
  if (index.columns.length === 0) throw configError(scope, `createIndex: index '${index.name}' has no columns`);
  for (const column of index.columns) {
    const type = Object.hasOwn(BUILT_IN, column) ? BUILT_IN[column] : schema.columns[column]?.type;
    if (!type || !INDEXABLE.has(type)) {
      throw configError(scope, `createIndex: column '${column}' of ${schema.className} is missing or not a scalar column`);
    }
  }
  const existing = schema.indexes.find((i) => i.name === index.name);
  const folded = schema.indexes.find((i) => i.name.toLowerCase() === index.name.toLowerCase());
  if (!existing && folded) throw configError(scope, `createIndex: index '${index.name}' differs only in case from index '${folded.name}'`);
  if (!existing) return null;
  const same = existing.unique === index.unique && existing.columns.join('\u0000') === index.columns.join('\u0000');
  if (!same) throw configError(scope, `createIndex: index '${index.name}' already exists with another definition`);
  return existing;
}
