import type { ColumnSchema, IndexSpec, TableSchema } from '../../query/plan.js';
import { carriesAclRead } from '../../query/sql/acl-read-column.js';
import {
  TABLE_MARKER,
  compileCreateBookkeeping,
  compileInsertIndexRow,
  compileInsertSchemaRow,
  compileSelectIndexRows,
  compileSelectNamespaceRows,
  compileSelectSchemaRows,
  compileSelectTableNames,
} from '../../query/sql/bookkeeping-sql.js';
import { compileAddColumn, compileCreateIndex, compileCreateJoinTable, compileCreateTable } from '../../query/sql/ddl-compiler.js';
import type { SqlDialect } from '../../query/sql/dialect.js';
import { physicalTableName, relationTableName } from '../../query/sql/layout.js';
import type { SchemaDrop } from '../../query/sql/schema-drops.js';
import type { TableRef } from '../port.js';
import { planDropNamespace, schemaFromRows } from './schema-rows.js';
import { type SqlProgram, rows, schema as schemaOps, write } from './sql-program.js';

/** What one SQL engine adds to the schema store: its dialect and the hooks where engines differ. */
export interface SchemaStoreDialect {
  readonly dialect: SqlDialect;
  /**
   * Runs after an `ACL` column was made (`created`: with its table, else added to one) or checked:
   * SQLite makes the declared indexes again with `ACL$read` (D147), PostgreSQL gives `ACL$read` its
   * GIN index, first the column when the table lacks it (D161).
   */
  aclReadColumn(table: string, schema: TableSchema, created: boolean): SqlProgram<void>;
  /** Makes again the indexes an older version made (PostgreSQL, D160); nothing on SQLite. */
  upgradeIndexes(table: string, schema: TableSchema): SqlProgram<void>;
  /** Whether a driver error is a duplicate key (another process recorded the same row first). */
  duplicateKey(error: unknown): boolean;
}

/**
 * Table schemas in `_svc_schema`/`_svc_indexes` (bookkeeping-sql.ts) and the DDL behind them
 * (ddl-compiler.ts), written once as SQL programs (sql-program.ts) that the SQLite adapter runs
 * synchronously and the PostgreSQL adapter asynchronously. Schema rows are claimed first (the first
 * process to record a column fixes its type: rows already there are kept), then `materialize` runs the
 * DDL with the claimed types, every statement `IF NOT EXISTS`, so processes making the same table or
 * column at once converge (D62). The caller owns caching and transactions.
 */
export function schemaStore(engine: SchemaStoreDialect) {
  const D = engine.dialect;

  /** The persisted schema of a table, or null when it does not exist. */
  function* load(ref: TableRef): SqlProgram<TableSchema | null> {
    const schemaRows = yield* rows(compileSelectSchemaRows(D, ref.namespace, ref.className));
    if (schemaRows.length === 0) return null;
    return schemaFromRows(ref.className, schemaRows, yield* rows(compileSelectIndexRows(D, ref.namespace, ref.className)));
  }

  /** The class names of every table of a namespace. */
  function* tableNames(namespace: string): SqlProgram<string[]> {
    return (yield* rows(compileSelectTableNames(D, namespace))).map((row) => String(row.className));
  }

  /** Records the table marker (`table`) and columns; a row that exists is kept (its type wins). */
  function* claim(ref: TableRef, table: boolean, columns: ReadonlyArray<readonly [string, ColumnSchema]>): SqlProgram<void> {
    if (table) yield* write(compileInsertSchemaRow(D, ref.namespace, ref.className, TABLE_MARKER, '', null));
    for (const [name, column] of columns) yield* write(compileInsertSchemaRow(D, ref.namespace, ref.className, name, column.type, column.targetClass ?? null));
  }

  /**
   * Makes the physical table match a recorded schema: the table with every column and the join tables
   * of its Relations; with `only`, those columns are added to the table. Idempotent, and the table
   * comes first even when adding: a process adding a column may get here before the one that
   * claimed the table ran its CREATE TABLE.
   */
  function* materialize(ref: TableRef, schema: TableSchema, only?: ReadonlyArray<readonly [string, ColumnSchema]>): SqlProgram<void> {
    const table = physicalTableName(ref.namespace, ref.className);
    const all = Object.entries(schema.columns);
    yield* schemaOps(compileCreateTable(D, table, all));
    for (const [name, column] of only ?? all) {
      if (column.type === 'Relation') yield* schemaOps(compileCreateJoinTable(D, relationTableName(ref.namespace, ref.className, name)));
      else if (only) yield* schemaOps(compileAddColumn(D, table, name, column));
      if (carriesAclRead(name, column)) yield* engine.aclReadColumn(table, schema, only === undefined);
    }
  }

  /** Makes again the indexes an older version made (once per table per process; engine.upgradeIndexes). */
  function* upgradeIndexes(ref: TableRef, schema: TableSchema): SqlProgram<void> {
    yield* engine.upgradeIndexes(physicalTableName(ref.namespace, ref.className), schema);
  }

  /** Creates a declared index (physical name `<table>$ix$<name>`) and records it; a racing record of the same index is kept. */
  function* addIndex(ref: TableRef, index: IndexSpec, schema: TableSchema): SqlProgram<void> {
    yield* schemaOps([compileCreateIndex(D, physicalTableName(ref.namespace, ref.className), index, schema)]);
    try {
      yield* schemaOps([compileInsertIndexRow(D, ref.namespace, ref.className, index.name, index.columns, index.unique)]);
    } catch (error) {
      if (!engine.duplicateKey(error)) throw error;
    }
  }

  /** Runs a planned drop (src/query/sql/schema-drops.ts): its DDL, then the bookkeeping rows. */
  function* drop(plan: SchemaDrop): SqlProgram<void> {
    yield* schemaOps(plan.ddl);
    for (const statement of plan.rows) yield* write(statement);
  }

  /** Drops every table of a namespace (data, join tables, bookkeeping rows). */
  function* dropNamespace(namespace: string): SqlProgram<void> {
    yield* drop(planDropNamespace(D, namespace, yield* rows(compileSelectNamespaceRows(D, namespace))));
  }

  /** Creates the two bookkeeping tables when missing (safe to race). */
  function* createBookkeeping(): SqlProgram<void> {
    yield* schemaOps(compileCreateBookkeeping(D));
  }

  return { load, tableNames, claim, materialize, upgradeIndexes, addIndex, drop, dropNamespace, createBookkeeping };
}

/** The operations of the schema store, as programs. */
export type SchemaStorePrograms = ReturnType<typeof schemaStore>;
