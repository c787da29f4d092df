import type { TableSchema } from '../../query/plan.js';
import type { CompiledQuery } from '../../query/sql/fragment.js';

const fingerprints = new WeakMap<TableSchema, string>();

/** A short hash (FNV-1a) of a schema's column names and types, computed once per (frozen) schema. */
function fingerprint(schema: TableSchema): string {
  let cached = fingerprints.get(schema);
  if (cached !== undefined) return cached;
  let hash = 0x811c9dc5;
  for (const [name, column] of Object.entries(schema.columns)) {
    const text = `${name}:${column.type};`;
    for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  }
  cached = (hash >>> 0).toString(36);
  fingerprints.set(schema, cached);
  return cached;
}

/**
 * The statement keyed to the column types of the schemas it was compiled from, by a trailing
 * comment. postgres.js caches a prepared statement per text and connection, and PostgreSQL fixes a
 * prepared statement's parameter types when it is prepared: once a column is dropped and added back
 * with another type (or its table dropped and made again), the same text would run with the old
 * types ("invalid input syntax for type double precision"). A new fingerprint makes a new statement.
 */
export function keyedToSchemas(query: CompiledQuery, schemas: Iterable<TableSchema | null>): CompiledQuery {
  let key = '';
  for (const schema of schemas) if (schema) key += `${key ? '.' : ''}${fingerprint(schema)}`;
  return { sql: `${query.sql} /*${key}*/`, parameters: query.parameters };
}
