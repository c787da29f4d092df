import type { SqlDialect } from './dialect.js';
import type { CompiledQuery } from './fragment.js';
import { physicalIdent } from './identifier.js';
import { INDEX_TABLE, SCHEMA_TABLE } from './layout.js';

/**
 * The statements over the two bookkeeping tables of layout.ts: `_svc_schema` (one row per column,
 * plus a marker row with an empty column name per table) and `_svc_indexes` (one row per declared
 * index, read back in insertion order).
 */

/** The marker row's column name: a table exists (it may have no columns yet). */
export const TABLE_MARKER = '';

function p(dialect: SqlDialect, from: number, count: number): string {
  return Array.from({ length: count }, (_, i) => dialect.placeholder(from + i)).join(', ');
}

/** Creates both bookkeeping tables when missing. */
export function compileCreateBookkeeping(dialect: SqlDialect): CompiledQuery[] {
  const text = dialect.columnType('text');
  return [
    {
      sql:
        `CREATE TABLE IF NOT EXISTS ${physicalIdent(dialect, SCHEMA_TABLE)} ("namespace" ${text} NOT NULL, "className" ${text} NOT NULL, ` +
        `"column" ${text} NOT NULL, "type" ${text} NOT NULL, "targetClass" ${text}, PRIMARY KEY ("namespace", "className", "column"))${dialect.keyOnlyTable}`,
      parameters: [],
    },
    {
      sql:
        `CREATE TABLE IF NOT EXISTS ${physicalIdent(dialect, INDEX_TABLE)} ("namespace" ${text} NOT NULL, "className" ${text} NOT NULL, ` +
        `"name" ${text} NOT NULL, "columns" ${text} NOT NULL, "unique" ${dialect.columnType('boolean')} NOT NULL${dialect.insertionOrder.column}, ` +
        `PRIMARY KEY ("namespace", "className", "name"))`,
      parameters: [],
    },
  ];
}

/** Rows `{ column, type, targetClass }` of one table (none: the table does not exist). */
export function compileSelectSchemaRows(dialect: SqlDialect, namespace: string, className: string): CompiledQuery {
  return {
    sql: `SELECT "column", "type", "targetClass" FROM ${physicalIdent(dialect, SCHEMA_TABLE)} WHERE "namespace" = ${dialect.placeholder(1)} AND "className" = ${dialect.placeholder(2)}`,
    parameters: [namespace, className],
  };
}

/** Rows `{ name, columns, unique }` of one table's declared indexes, in the order they were declared. */
export function compileSelectIndexRows(dialect: SqlDialect, namespace: string, className: string): CompiledQuery {
  return {
    sql:
      `SELECT "name", "columns", "unique" FROM ${physicalIdent(dialect, INDEX_TABLE)} WHERE "namespace" = ${dialect.placeholder(1)} ` +
      `AND "className" = ${dialect.placeholder(2)} ORDER BY ${dialect.insertionOrder.orderBy}`,
    parameters: [namespace, className],
  };
}

/** Rows `{ className }` of every table of a namespace. */
export function compileSelectTableNames(dialect: SqlDialect, namespace: string): CompiledQuery {
  return {
    sql: `SELECT "className" FROM ${physicalIdent(dialect, SCHEMA_TABLE)} WHERE "namespace" = ${dialect.placeholder(1)} AND "column" = ${dialect.placeholder(2)}`,
    parameters: [namespace, TABLE_MARKER],
  };
}

/** Rows `{ className, column, type }` of every table and column of a namespace. */
export function compileSelectNamespaceRows(dialect: SqlDialect, namespace: string): CompiledQuery {
  return {
    sql: `SELECT "className", "column", "type" FROM ${physicalIdent(dialect, SCHEMA_TABLE)} WHERE "namespace" = ${dialect.placeholder(1)}`,
    parameters: [namespace],
  };
}

/** Records a column (or, with `TABLE_MARKER`, a table); recording it twice keeps the first row. */
export function compileInsertSchemaRow(dialect: SqlDialect, namespace: string, className: string, column: string, type: string, targetClass: string | null): CompiledQuery {
  const { prefix, suffix } = dialect.insertIgnore;
  return {
    sql: `${prefix} ${physicalIdent(dialect, SCHEMA_TABLE)} ("namespace", "className", "column", "type", "targetClass") VALUES (${p(dialect, 1, 5)})${suffix}`,
    parameters: [namespace, className, column, type, targetClass],
  };
}

/** Records a declared index (its logical columns as a JSON array). */
export function compileInsertIndexRow(dialect: SqlDialect, namespace: string, className: string, name: string, columns: readonly string[], unique: boolean): CompiledQuery {
  return {
    sql: `INSERT INTO ${physicalIdent(dialect, INDEX_TABLE)} ("namespace", "className", "name", "columns", "unique") VALUES (${p(dialect, 1, 5)})`,
    parameters: [namespace, className, name, JSON.stringify(columns), dialect.booleanParam(unique)],
  };
}

/** Forgets every table and index of a namespace (after its tables were dropped). */
export function compileDeleteNamespaceRows(dialect: SqlDialect, namespace: string): CompiledQuery[] {
  return [SCHEMA_TABLE, INDEX_TABLE].map((table) => ({
    sql: `DELETE FROM ${physicalIdent(dialect, table)} WHERE "namespace" = ${dialect.placeholder(1)}`,
    parameters: [namespace],
  }));
}

/** Forgets one column of a table. */
export function compileDeleteSchemaRow(dialect: SqlDialect, namespace: string, className: string, column: string): CompiledQuery {
  return {
    sql: `DELETE FROM ${physicalIdent(dialect, SCHEMA_TABLE)} WHERE "namespace" = ${dialect.placeholder(1)} AND "className" = ${dialect.placeholder(2)} AND "column" = ${dialect.placeholder(3)}`,
    parameters: [namespace, className, column],
  };
}

/** Forgets one declared index of a table. */
export function compileDeleteIndexRow(dialect: SqlDialect, namespace: string, className: string, name: string): CompiledQuery {
  return {
    sql: `DELETE FROM ${physicalIdent(dialect, INDEX_TABLE)} WHERE "namespace" = ${dialect.placeholder(1)} AND "className" = ${dialect.placeholder(2)} AND "name" = ${dialect.placeholder(3)}`,
    parameters: [namespace, className, name],
  };
}

/** Forgets a table: its marker, columns and indexes (after it was dropped). */
export function compileDeleteTableRows(dialect: SqlDialect, namespace: string, className: string): CompiledQuery[] {
  return [SCHEMA_TABLE, INDEX_TABLE].map((table) => ({
    sql: `DELETE FROM ${physicalIdent(dialect, table)} WHERE "namespace" = ${dialect.placeholder(1)} AND "className" = ${dialect.placeholder(2)}`,
    parameters: [namespace, className],
  }));
}
