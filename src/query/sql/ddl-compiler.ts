import type { ColumnSchema, IndexSpec, TableSchema } from '../plan.js';
import type { SqlDialect } from './dialect.js';
import type { CompiledQuery } from './fragment.js';
import { physicalIdent } from './identifier.js';
import { ACL_READ_COLUMN, carriesAclRead } from './acl-read-column.js';
import { STORAGE_KIND, physicalColumns } from './layout.js';

/**
 * Table DDL per dialect, exactly as layout.ts lays tables out. Every statement is idempotent
 * (`IF NOT EXISTS`), so concurrent processes creating the same table or index both succeed; each
 * is one statement with no parameters (DDL cannot bind values).
 */

function ddl(sql: string): CompiledQuery {
  return { sql, parameters: [] };
}

/** The columns a logical column stores in: its physical columns, and `ACL$read` beside `ACL` where the dialect keeps one. */
function storedColumns(dialect: SqlDialect, name: string, column: ColumnSchema): Array<[physical: string, type: string]> {
  if (column.type === 'Relation') return [];
  const type = dialect.columnType(STORAGE_KIND[column.type]);
  const out = physicalColumns(name, column).map((physical): [string, string] => [physical, type]);
  if (dialect.aclReadColumn && carriesAclRead(name, column)) out.push([ACL_READ_COLUMN, dialect.columnType('text')]);
  return out;
}

/** `"col" TYPE` for each stored column of a logical column (none for a Relation). */
function definitions(dialect: SqlDialect, name: string, column: ColumnSchema): string[] {
  return storedColumns(dialect, name, column).map(([physical, type]) => `${physicalIdent(dialect, physical)} ${type}`);
}

/**
 * A data table with its first columns in one CREATE TABLE (one ALTER TABLE per column would rewrite
 * the schema each time), then its `(createdAt, objectId)` index. Relation columns get their join
 * tables from `compileCreateJoinTable`.
 */
export function compileCreateTable(dialect: SqlDialect, table: string, columns: ReadonlyArray<readonly [string, ColumnSchema]>): CompiledQuery[] {
  const t = physicalIdent(dialect, table);
  const text = dialect.columnType('text');
  const ms = dialect.columnType('epoch_ms');
  const extra = columns.flatMap(([name, column]) => definitions(dialect, name, column).map((d) => `, ${d}`)).join('');
  return [
    ddl(`CREATE TABLE IF NOT EXISTS ${t} ("objectId" ${text} PRIMARY KEY NOT NULL, "createdAt" ${ms} NOT NULL, "updatedAt" ${ms} NOT NULL${extra})`),
    ddl(`CREATE INDEX IF NOT EXISTS ${physicalIdent(dialect, `${table}$$createdAt`)} ON ${t} ("createdAt", "objectId")`),
  ];
}

/** `ALTER TABLE ... ADD COLUMN` per physical column (none for a Relation). */
export function compileAddColumn(dialect: SqlDialect, table: string, name: string, column: ColumnSchema): CompiledQuery[] {
  return definitions(dialect, name, column).map((d) => ddl(`ALTER TABLE ${physicalIdent(dialect, table)} ${dialect.addColumn} ${d}`));
}

/** A Relation's join table (`owningId`, `relatedId`, primary key on both) and its `relatedId` index. */
export function compileCreateJoinTable(dialect: SqlDialect, joinTable: string): CompiledQuery[] {
  const j = physicalIdent(dialect, joinTable);
  const text = dialect.columnType('text');
  return [
    ddl(`CREATE TABLE IF NOT EXISTS ${j} ("owningId" ${text} NOT NULL, "relatedId" ${text} NOT NULL, PRIMARY KEY ("owningId", "relatedId"))${dialect.keyOnlyTable}`),
    ddl(`CREATE INDEX IF NOT EXISTS ${physicalIdent(dialect, `${joinTable}$$related`)} ON ${j} ("relatedId")`),
  ];
}

/** The physical name of a declared index: `<table>$ix$<name>`. */
export function indexName(table: string, index: IndexSpec): string {
  return `${table}$ix$${index.name}`;
}

/** A declared index over the physical columns of its logical columns (a GeoPoint indexes both). */
export function compileCreateIndex(dialect: SqlDialect, table: string, index: IndexSpec, schema: TableSchema): CompiledQuery {
  const columns = index.columns.flatMap((c) => {
    const column = Object.hasOwn(schema.columns, c) ? schema.columns[c] : undefined;
    return column ? physicalColumns(c, column) : [c];
  });
  const list = columns.map((c) => physicalIdent(dialect, c)).join(', ');
  return ddl(`CREATE ${index.unique ? 'UNIQUE ' : ''}INDEX IF NOT EXISTS ${physicalIdent(dialect, indexName(table, index))} ON ${physicalIdent(dialect, table)} (${list})`);
}

/** Drops a data or join table. */
export function compileDropTable(dialect: SqlDialect, table: string): CompiledQuery {
  return ddl(`DROP TABLE IF EXISTS ${physicalIdent(dialect, table)}`);
}

/** `ALTER TABLE ... DROP COLUMN` per stored column (none for a Relation: its join table goes instead). */
export function compileDropColumn(dialect: SqlDialect, table: string, name: string, column: ColumnSchema): CompiledQuery[] {
  return storedColumns(dialect, name, column).map(([physical]) => ddl(`ALTER TABLE ${physicalIdent(dialect, table)} ${dialect.dropColumn} ${physicalIdent(dialect, physical)}`));
}

/** Drops a declared index (`<table>$ix$<name>`). */
export function compileDropIndex(dialect: SqlDialect, table: string, index: IndexSpec): CompiledQuery {
  return ddl(`DROP INDEX IF EXISTS ${physicalIdent(dialect, indexName(table, index))}`);
}
