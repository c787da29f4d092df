import type { TableSchema } from '../plan.js';
import { compileDeleteIndexRow, compileDeleteSchemaRow, compileDeleteTableRows } from './bookkeeping-sql.js';
import { carriesAclRead } from './acl-read-column.js';
import { compileDropColumn, compileDropIndex, compileDropTable, compileRecreateIndexes } from './ddl-compiler.js';
import type { SqlDialect } from './dialect.js';
import type { CompiledQuery } from './fragment.js';
import { physicalTableName, relationTableName } from './layout.js';

/**
 * What removing part of a schema runs, per dialect: the DDL (indexes before the columns they name)
 * and the bookkeeping rows to forget. Both adapters run `ddl` then `rows` in one transaction where the
 * engine allows DDL in one (SQLite and PostgreSQL both do).
 */
export interface SchemaDrop {
  readonly ddl: readonly CompiledQuery[];
  readonly rows: readonly CompiledQuery[];
}

/**
 * Drops a column with its data, its join table (a Relation) and every declared index naming it (the
 * ACL column: the other indexes are made again without `ACL$read`); null when the table has no such column.
 */
export function planDropColumn(dialect: SqlDialect, namespace: string, schema: TableSchema, column: string): SchemaDrop | null {
  const definition = Object.hasOwn(schema.columns, column) ? schema.columns[column] : undefined;
  if (!definition) return null;
  const table = physicalTableName(namespace, schema.className);
  const indexes = schema.indexes.filter((index) => index.columns.includes(column));
  // The other indexes lose `ACL$read` with the ACL column (SQLite drops no indexed column).
  const kept = { ...schema, indexes: schema.indexes.filter((index) => !indexes.includes(index)) };
  const reshaped = carriesAclRead(column, definition) ? compileRecreateIndexes(dialect, table, kept, false) : [];
  return {
    ddl: [
      ...indexes.map((index) => compileDropIndex(dialect, table, index)),
      ...reshaped,
      ...(definition.type === 'Relation' ? [compileDropTable(dialect, relationTableName(namespace, schema.className, column))] : compileDropColumn(dialect, table, column, definition)),
    ],
    rows: [
      ...indexes.map((index) => compileDeleteIndexRow(dialect, namespace, schema.className, index.name)),
      compileDeleteSchemaRow(dialect, namespace, schema.className, column),
    ],
  };
}

/** Drops a declared index; null when the table has none of that name. */
export function planDropIndex(dialect: SqlDialect, namespace: string, schema: TableSchema, name: string): SchemaDrop | null {
  const index = schema.indexes.find((candidate) => candidate.name === name);
  if (!index) return null;
  return {
    ddl: [compileDropIndex(dialect, physicalTableName(namespace, schema.className), index)],
    rows: [compileDeleteIndexRow(dialect, namespace, schema.className, name)],
  };
}

/** Drops a table with its data, join tables and indexes. */
export function planDropTable(dialect: SqlDialect, namespace: string, schema: TableSchema): SchemaDrop {
  const relations = Object.entries(schema.columns).filter(([, column]) => column.type === 'Relation');
  return {
    ddl: [
      ...relations.map(([name]) => compileDropTable(dialect, relationTableName(namespace, schema.className, name))),
      compileDropTable(dialect, physicalTableName(namespace, schema.className)),
    ],
    rows: compileDeleteTableRows(dialect, namespace, schema.className),
  };
}
