import type { ColumnType } from '../../core/values.js';
import type { ColumnSchema, IndexSpec, TableSchema } from '../../query/plan.js';
import { INDEX_TABLE, SCHEMA_TABLE, SQL_STORAGE, physicalTableName, relationTableName } from '../../query/sql/layout.js';
import type { TableRef } from '../port.js';
import type { SqliteDatabase } from './database-shape.js';
import { quoteIdent } from './identifiers.js';
import { physicalColumns } from './row-codec.js';
import type { StatementCache } from './statement-cache.js';

/** `_svc_schema` row with this column name marks that a table exists (it may have no columns yet). */
const TABLE_MARKER = '';

interface SchemaRow {
  column: string;
  type: string;
  targetClass: string | null;
}

interface IndexRow {
  name: string;
  columns: string;
  unique: number;
}

/** Creates the two bookkeeping tables of layout.ts when missing. */
export function createBookkeeping(db: SqliteDatabase): void {
  db.exec(
    `CREATE TABLE IF NOT EXISTS ${quoteIdent(SCHEMA_TABLE)} (namespace TEXT NOT NULL, className TEXT NOT NULL, ` +
      `"column" TEXT NOT NULL, type TEXT NOT NULL, targetClass TEXT, PRIMARY KEY (namespace, className, "column")) WITHOUT ROWID;` +
      `CREATE TABLE IF NOT EXISTS ${quoteIdent(INDEX_TABLE)} (namespace TEXT NOT NULL, className TEXT NOT NULL, ` +
      `name TEXT NOT NULL, columns TEXT NOT NULL, "unique" INTEGER NOT NULL, PRIMARY KEY (namespace, className, name));`,
  );
}

/**
 * Reads and writes table schemas and the DDL behind them. The caller owns caching and transactions:
 * every write method here must run inside one.
 */
export class SchemaStore {
  constructor(
    private readonly db: SqliteDatabase,
    private readonly statements: StatementCache,
  ) {}

  /** The persisted schema of a table, or null when it does not exist. */
  load(ref: TableRef): TableSchema | null {
    const rows = this.statements
      .get(`SELECT "column", type, targetClass FROM ${quoteIdent(SCHEMA_TABLE)} WHERE namespace = ? AND className = ?`)
      .all(ref.namespace, ref.className) as SchemaRow[];
    if (rows.length === 0) return null;
    const columns: Record<string, ColumnSchema> = {};
    for (const row of rows) {
      if (row.column === TABLE_MARKER) continue;
      columns[row.column] = row.targetClass ? { type: row.type as ColumnType, targetClass: row.targetClass } : { type: row.type as ColumnType };
    }
    const indexRows = this.statements
      .get(`SELECT name, columns, "unique" FROM ${quoteIdent(INDEX_TABLE)} WHERE namespace = ? AND className = ? ORDER BY rowid`)
      .all(ref.namespace, ref.className) as IndexRow[];
    const indexes = indexRows.map((r): IndexSpec => ({ name: r.name, columns: JSON.parse(r.columns) as string[], unique: r.unique === 1 }));
    return { className: ref.className, columns, indexes };
  }

  /** The class names of every table of a namespace. */
  tableNames(namespace: string): string[] {
    return this.statements
      .get(`SELECT className FROM ${quoteIdent(SCHEMA_TABLE)} WHERE namespace = ? AND "column" = ?`)
      .all(namespace, TABLE_MARKER)
      .map((row) => (row as { className: string }).className);
  }

  /**
   * Creates the physical table with its createdAt index and first columns in one CREATE TABLE
   * (one ALTER TABLE per column would rewrite the schema each time), and records them.
   */
  createTable(ref: TableRef, columns: ReadonlyArray<readonly [string, ColumnSchema]>): void {
    const table = physicalTableName(ref.namespace, ref.className);
    const definitions = columns.flatMap(([name, column]) =>
      column.type === 'Relation' ? [] : physicalColumns(name, column).map((physical) => `, ${quoteIdent(physical)} ${storageOf(column)}`),
    );
    this.db.exec(
      `CREATE TABLE IF NOT EXISTS ${quoteIdent(table)} (objectId TEXT PRIMARY KEY NOT NULL, ` +
        `createdAt INTEGER NOT NULL, updatedAt INTEGER NOT NULL${definitions.join('')});` +
        `CREATE INDEX IF NOT EXISTS ${quoteIdent(`${table}$$createdAt`)} ON ${quoteIdent(table)} (createdAt, objectId);`,
    );
    this.insertSchemaRow(ref, TABLE_MARKER, '', null);
    for (const [name, column] of columns) {
      if (column.type === 'Relation') this.createJoinTable(ref, name);
      this.insertSchemaRow(ref, name, column.type, column.targetClass ?? null);
    }
  }

  /** Adds a column (ALTER TABLE, or a join table for a Relation) and records it. */
  addColumn(ref: TableRef, name: string, column: ColumnSchema): void {
    const table = physicalTableName(ref.namespace, ref.className);
    if (column.type === 'Relation') this.createJoinTable(ref, name);
    else {
      for (const physical of physicalColumns(name, column)) {
        this.db.exec(`ALTER TABLE ${quoteIdent(table)} ADD COLUMN ${quoteIdent(physical)} ${storageOf(column)}`);
      }
    }
    this.insertSchemaRow(ref, name, column.type, column.targetClass ?? null);
  }

  private createJoinTable(ref: TableRef, column: string): void {
    const join = relationTableName(ref.namespace, ref.className, column);
    this.db.exec(
      `CREATE TABLE IF NOT EXISTS ${quoteIdent(join)} (owningId TEXT NOT NULL, relatedId TEXT NOT NULL, ` +
        `PRIMARY KEY (owningId, relatedId)) WITHOUT ROWID;` +
        `CREATE INDEX IF NOT EXISTS ${quoteIdent(`${join}$$related`)} ON ${quoteIdent(join)} (relatedId);`,
    );
  }

  /** Creates a declared index (physical name `<table>$ix$<name>`) and records it. */
  addIndex(ref: TableRef, index: IndexSpec, schema: TableSchema): void {
    const table = physicalTableName(ref.namespace, ref.className);
    const columns = index.columns.flatMap((c) => {
      const column = schema.columns[c];
      return column ? physicalColumns(c, column) : [c];
    });
    this.db.exec(
      `CREATE ${index.unique ? 'UNIQUE ' : ''}INDEX ${quoteIdent(`${table}$ix$${index.name}`)} ` +
        `ON ${quoteIdent(table)} (${columns.map(quoteIdent).join(', ')})`,
    );
    this.statements
      .get(`INSERT INTO ${quoteIdent(INDEX_TABLE)} (namespace, className, name, columns, "unique") VALUES (?, ?, ?, ?, ?)`)
      .run(ref.namespace, ref.className, index.name, JSON.stringify(index.columns), index.unique ? 1 : 0);
  }

  /** Drops every table of a namespace (data, join tables, bookkeeping rows). */
  dropNamespace(namespace: string): void {
    const rows = this.statements
      .get(`SELECT className, "column", type FROM ${quoteIdent(SCHEMA_TABLE)} WHERE namespace = ?`)
      .all(namespace) as Array<{ className: string; column: string; type: string }>;
    for (const row of rows) {
      if (row.column === TABLE_MARKER) this.db.exec(`DROP TABLE IF EXISTS ${quoteIdent(physicalTableName(namespace, row.className))}`);
      else if (row.type === 'Relation') this.db.exec(`DROP TABLE IF EXISTS ${quoteIdent(relationTableName(namespace, row.className, row.column))}`);
    }
    this.statements.get(`DELETE FROM ${quoteIdent(SCHEMA_TABLE)} WHERE namespace = ?`).run(namespace);
    this.statements.get(`DELETE FROM ${quoteIdent(INDEX_TABLE)} WHERE namespace = ?`).run(namespace);
  }

  private insertSchemaRow(ref: TableRef, column: string, type: string, targetClass: string | null): void {
    this.statements
      .get(`INSERT OR IGNORE INTO ${quoteIdent(SCHEMA_TABLE)} (namespace, className, "column", type, targetClass) VALUES (?, ?, ?, ?, ?)`)
      .run(ref.namespace, ref.className, column, type, targetClass);
  }
}

/** The SQL type of a column's physical columns (a Relation has none: it lives in a join table). */
function storageOf(column: ColumnSchema): string {
  if (column.type === 'Relation') throw new Error('[svcbase] [sqlite] a Relation column has no physical column');
  return column.type === 'GeoPoint' ? 'REAL' : SQL_STORAGE[column.type];
}
