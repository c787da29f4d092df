import type { ColumnSchema, IndexSpec, TableSchema } from '../../query/plan.js';
import { type BookkeepingRow, planDropNamespace, schemaFromRows } from '../sql/schema-rows.js';
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
import { carriesAclRead } from '../../query/sql/acl-read-column.js';
import { compileAddColumn, compileCreateIndex, compileCreateJoinTable, compileCreateTable, compileRecreateIndexes } from '../../query/sql/ddl-compiler.js';
import type { SqlDialect } from '../../query/sql/dialect.js';
import type { CompiledQuery } from '../../query/sql/fragment.js';
import type { SchemaDrop } from '../../query/sql/schema-drops.js';
import { physicalTableName, relationTableName } from '../../query/sql/layout.js';
import { sqliteAdapterDialect } from '../../query/sql/sqlite-dialect.js';
import type { TableRef } from '../port.js';
import type { SqliteDatabase } from './database-shape.js';
import type { StatementCache } from './statement-cache.js';

/** Runs DDL (no parameters: DDL binds none) without caching a statement for it. */
function execAll(db: SqliteDatabase, statements: readonly CompiledQuery[]): void {
  for (const statement of statements) db.exec(statement.sql);
}

/** Creates the two bookkeeping tables of layout.ts when missing. */
export function createBookkeeping(db: SqliteDatabase, dialect: SqlDialect = sqliteAdapterDialect): void {
  execAll(db, compileCreateBookkeeping(dialect));
}

/**
 * Reads and writes table schemas and the DDL behind them, running the statements of
 * src/query/sql/bookkeeping-sql.ts and ddl-compiler.ts on the driver. The caller owns caching and
 * transactions: every write method here must run inside one.
 */
export class SchemaStore {
  constructor(
    private readonly db: SqliteDatabase,
    private readonly statements: StatementCache,
    private readonly dialect: SqlDialect = sqliteAdapterDialect,
  ) {}

  /** The persisted schema of a table, or null when it does not exist. */
  load(ref: TableRef): TableSchema | null {
    const rows = this.all(compileSelectSchemaRows(this.dialect, ref.namespace, ref.className)) as BookkeepingRow[];
    if (rows.length === 0) return null;
    return schemaFromRows(ref.className, rows, this.all(compileSelectIndexRows(this.dialect, ref.namespace, ref.className)) as BookkeepingRow[]);
  }

  /** The class names of every table of a namespace. */
  tableNames(namespace: string): string[] {
    return this.all(compileSelectTableNames(this.dialect, namespace)).map((row) => (row as { className: string }).className);
  }

  /** Creates the physical table with its createdAt index and first columns, and records them. */
  createTable(ref: TableRef, columns: ReadonlyArray<readonly [string, ColumnSchema]>): void {
    execAll(this.db, compileCreateTable(this.dialect, physicalTableName(ref.namespace, ref.className), columns));
    this.insertSchemaRow(ref, TABLE_MARKER, '', null);
    for (const [name, column] of columns) {
      if (column.type === 'Relation') this.createJoinTable(ref, name);
      this.insertSchemaRow(ref, name, column.type, column.targetClass ?? null);
    }
  }

  /**
   * Adds a column (ALTER TABLE, or a join table for a Relation) and records it. `schema` is the
   * table's schema with the column: an ACL column makes its declared indexes again with `ACL$read`
   * (D147), one pass over the table per index.
   */
  addColumn(ref: TableRef, name: string, column: ColumnSchema, schema: TableSchema): void {
    const table = physicalTableName(ref.namespace, ref.className);
    if (column.type === 'Relation') this.createJoinTable(ref, name);
    else execAll(this.db, compileAddColumn(this.dialect, table, name, column));
    if (carriesAclRead(name, column)) execAll(this.db, compileRecreateIndexes(this.dialect, table, schema, true));
    this.insertSchemaRow(ref, name, column.type, column.targetClass ?? null);
  }

  private createJoinTable(ref: TableRef, column: string): void {
    execAll(this.db, compileCreateJoinTable(this.dialect, relationTableName(ref.namespace, ref.className, column)));
  }

  /** Creates a declared index (physical name `<table>$ix$<name>`) and records it. */
  addIndex(ref: TableRef, index: IndexSpec, schema: TableSchema): void {
    execAll(this.db, [compileCreateIndex(this.dialect, physicalTableName(ref.namespace, ref.className), index, schema)]);
    this.run(compileInsertIndexRow(this.dialect, ref.namespace, ref.className, index.name, index.columns, index.unique));
  }

  /** Runs a planned drop (src/query/sql/schema-drops.ts): its DDL, then the bookkeeping rows. */
  drop(plan: SchemaDrop): void {
    execAll(this.db, plan.ddl);
    for (const statement of plan.rows) this.run(statement);
  }

  /** Drops every table of a namespace (data, join tables, bookkeeping rows). */
  dropNamespace(namespace: string): void {
    const plan = planDropNamespace(this.dialect, namespace, this.all(compileSelectNamespaceRows(this.dialect, namespace)) as BookkeepingRow[]);
    execAll(this.db, plan.ddl);
    for (const statement of plan.rows) this.run(statement);
  }

  private insertSchemaRow(ref: TableRef, column: string, type: string, targetClass: string | null): void {
    this.run(compileInsertSchemaRow(this.dialect, ref.namespace, ref.className, column, type, targetClass));
  }

  private all(query: CompiledQuery): unknown[] {
    return this.statements.get(query.sql).all(...query.parameters);
  }

  private run(query: CompiledQuery): void {
    this.statements.get(query.sql).run(...query.parameters);
  }
}
