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

/**
 * The columns a logical column stores in: its physical columns, and `ACL$read` beside `ACL` where the
 * dialect keeps one. The array form (PostgreSQL) is made with its table, or later with its values
 * filled in one statement (pg-acl-read.ts), never by a plain ADD COLUMN: `adding` leaves it out.
 */
function storedColumns(dialect: SqlDialect, name: string, column: ColumnSchema, adding = false): Array<[physical: string, type: string]> {
  if (column.type === 'Relation') return [];
  const type = dialect.columnType(STORAGE_KIND[column.type]);
  const out = physicalColumns(name, column).map((physical): [string, string] => [physical, type]);
  if (dialect.aclReadColumn && carriesAclRead(name, column)) out.push([ACL_READ_COLUMN, dialect.columnType('text')]);
  // Every row gets its principals: `{*}` (everyone) until the codec writes them (D161).
  if (dialect.aclReadArray && !adding && carriesAclRead(name, column)) out.push([ACL_READ_COLUMN, `${dialect.aclReadArray.type} NOT NULL DEFAULT '{*}'`]);
  return out;
}

/** `"col" TYPE` for each stored column of a logical column (none for a Relation). */
function definitions(dialect: SqlDialect, name: string, column: ColumnSchema): string[] {
  return storedColumns(dialect, name, column, true).map(([physical, type]) => `${physicalIdent(dialect, physical)} ${type}`);
}

/**
 * A data table with its first columns in one CREATE TABLE (one ALTER TABLE per column would rewrite
 * the schema each time), then its `(createdAt, objectId)` index. Relation columns get their join
 * tables from `compileCreateJoinTable`. `ACL$read` comes right after the built-in columns: SQLite
 * reads a row's columns from its front, and the ACL filter reads that one of every row it tests
 * (a fifth of the filter's cost on a scan when it came last, D147).
 */
export function compileCreateTable(dialect: SqlDialect, table: string, columns: ReadonlyArray<readonly [string, ColumnSchema]>): CompiledQuery[] {
  const t = physicalIdent(dialect, table);
  const text = dialect.columnType('text');
  const ms = dialect.columnType('epoch_ms');
  const stored = columns.flatMap(([name, column]) => storedColumns(dialect, name, column));
  const ordered = [...stored.filter(([physical]) => physical === ACL_READ_COLUMN), ...stored.filter(([physical]) => physical !== ACL_READ_COLUMN)];
  const extra = ordered.map(([physical, type]) => `, ${physicalIdent(dialect, physical)} ${type}`).join('');
  return [
    ddl(`CREATE TABLE IF NOT EXISTS ${t} ("objectId" ${text} PRIMARY KEY NOT NULL, "createdAt" ${ms} NOT NULL, "updatedAt" ${ms} NOT NULL${extra})`),
    ddl(`CREATE INDEX IF NOT EXISTS ${physicalIdent(dialect, `${table}$$createdAt`)} ON ${t} (${defaultOrderColumns(dialect)})`),
  ];
}

/** The columns of the `(createdAt, objectId)` index, in the default order of a find where the dialect spells it. */
function defaultOrderColumns(dialect: SqlDialect): string {
  const term = dialect.indexTerm;
  return term ? `${term('"createdAt"', false)}, ${term('"objectId"', true)}` : '"createdAt", "objectId"';
}

/** The name of the GIN index over the read principals array (D161). */
export function aclReadArrayIndexName(table: string): string {
  return `${table}$$aclread`;
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

/**
 * Whether a declared index carries `ACL$read` after its own columns (D147): every non-unique index
 * of a table whose ACL column has one. The ACL read filter is then tested on the index entry (a
 * count reads no row at all, and a find reads only the rows it returns). A unique index keeps its
 * columns: a trailing column would change what it holds unique.
 */
export function indexCarriesAclRead(dialect: SqlDialect, index: IndexSpec, schema: TableSchema): boolean {
  if (!dialect.aclReadColumn || index.unique) return false;
  const acl = Object.hasOwn(schema.columns, 'ACL') ? schema.columns['ACL'] : undefined;
  return acl !== undefined && carriesAclRead('ACL', acl);
}

/** The physical columns of a declared index, in order (`ACL$read` last where it carries it). */
export function indexPhysicalColumns(dialect: SqlDialect, index: IndexSpec, schema: TableSchema): string[] {
  const columns = index.columns.flatMap((c) => {
    const column = Object.hasOwn(schema.columns, c) ? schema.columns[c] : undefined;
    return column ? physicalColumns(c, column) : [c];
  });
  if (indexCarriesAclRead(dialect, index, schema)) columns.push(ACL_READ_COLUMN);
  return columns;
}

/**
 * The column list of a declared index. Where the dialect spells index terms (PostgreSQL, D160), each
 * column is spelled as a find orders by it (ascending, NULL first, a String in code point order) and
 * a non-unique index ends with the finds' tie-break `"objectId" COLLATE "C"`: a find ordered by the
 * index's columns walks it forward, and one ordered descending walks it backward.
 */
function indexColumnList(dialect: SqlDialect, index: IndexSpec, schema: TableSchema): string {
  const physical = indexPhysicalColumns(dialect, index, schema);
  const term = dialect.indexTerm;
  if (!term) return physical.map((c) => physicalIdent(dialect, c)).join(', ');
  const textual = new Set(index.columns.filter((c) => Object.hasOwn(schema.columns, c) && schema.columns[c]!.type === 'String'));
  const terms = physical.map((c) => term(physicalIdent(dialect, c), textual.has(c) || c === 'objectId'));
  if (!index.unique && !physical.includes('objectId')) terms.push(term('"objectId"', true));
  return terms.join(', ');
}

/** A declared index over the physical columns of its logical columns (a GeoPoint indexes both), and `ACL$read` where it carries it. */
export function compileCreateIndex(dialect: SqlDialect, table: string, index: IndexSpec, schema: TableSchema): CompiledQuery {
  const list = indexColumnList(dialect, index, schema);
  return ddl(`CREATE ${index.unique ? 'UNIQUE ' : ''}INDEX IF NOT EXISTS ${physicalIdent(dialect, indexName(table, index))} ON ${physicalIdent(dialect, table)} (${list})`);
}

/**
 * Drops and creates again every declared index whose shape `schema` changes (`ACL$read` gained or
 * lost with the ACL column, D147): the indexes that carry it under `schema` when `carry`, else those
 * that carried it before.
 */
export function compileRecreateIndexes(dialect: SqlDialect, table: string, schema: TableSchema, carry: boolean): CompiledQuery[] {
  const withAcl: TableSchema = carry ? schema : { ...schema, columns: { ...schema.columns, ACL: { type: 'Object' } } };
  const after: TableSchema = carry ? schema : { ...schema, columns: Object.fromEntries(Object.entries(schema.columns).filter(([name]) => name !== 'ACL')) };
  return schema.indexes
    .filter((index) => indexCarriesAclRead(dialect, index, withAcl))
    .flatMap((index) => [compileDropIndex(dialect, table, index), compileCreateIndex(dialect, table, index, after)]);
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
