import type { SqlDialect, SqlQueryDialect } from './dialect.js';
import type { CompiledQuery } from './fragment.js';
import { physicalIdent } from './identifier.js';

/**
 * Row writes per dialect (the query part; the read of a read-modify-write and the Relation insert
 * also use the locking part): INSERT, the UPDATE of field operations, DELETE, the read of a
 * read-modify-write, and the join-table rows of Relations. Pure functions over physical names
 * (layout.ts) and already-encoded column values; every value is a parameter.
 */

/** One assignment of an UPDATE: a physical column set to a value, or a Number column incremented. */
export type Assignment =
  | { readonly kind: 'set'; readonly column: string; readonly value: unknown }
  | { readonly kind: 'increment'; readonly column: string; readonly amount: number };

function placeholders(dialect: SqlQueryDialect, from: number, count: number): string {
  const out = new Array<string>(count);
  for (let i = 0; i < count; i++) out[i] = dialect.placeholder(from + i);
  return out.join(', ');
}

/** `INSERT INTO t ("objectId", ...) VALUES (?, ...)` of physical columns and their values. */
export function compileInsert(dialect: SqlQueryDialect, table: string, columns: readonly string[], values: readonly unknown[]): CompiledQuery {
  const names = columns.map((c) => physicalIdent(dialect, c)).join(', ');
  return { sql: `INSERT INTO ${physicalIdent(dialect, table)} (${names}) VALUES (${placeholders(dialect, 1, columns.length)})`, parameters: values };
}

/** The largest finite double, as SQL: a guard's bound. */
const MAX_DOUBLE = '1.7976931348623157e308';

/**
 * `UPDATE t SET ..., "updatedAt" = ? WHERE "objectId" = ? RETURNING *`: the row after the update,
 * none when it does not exist. An increment of a missing value starts from 0. `returning` names the
 * columns instead of `*`: a prepared statement whose result type is `*` fails once a column is added
 * (PostgreSQL's "cached plan must not change result type", which no driver can retry in a transaction).
 */
export function compileUpdate(
  dialect: SqlQueryDialect,
  table: string,
  assignments: readonly Assignment[],
  objectId: string,
  updatedAtMs: number,
  returning?: readonly string[],
): CompiledQuery {
  const terms: string[] = [];
  const parameters: unknown[] = [];
  for (const a of assignments) {
    const name = physicalIdent(dialect, a.column);
    parameters.push(a.kind === 'set' ? a.value : a.amount);
    const p = dialect.placeholder(parameters.length);
    terms.push(a.kind === 'set' ? `${name} = ${p}` : `${name} = COALESCE(${name}, 0) + ${p}`);
  }
  parameters.push(updatedAtMs, objectId);
  const at = parameters.length;
  // Where a sum past the double range would be stored as Infinity, such a row is not matched: the
  // caller tells it from a missing one (record-update.ts) and answers 111, as PostgreSQL's 22003 is.
  let guards = '';
  if (dialect.sumsOverflowToInfinity) {
    for (const a of assignments) {
      if (a.kind === 'set') continue;
      parameters.push(a.amount);
      guards += ` AND abs(COALESCE(${physicalIdent(dialect, a.column)}, 0) + ${dialect.placeholder(parameters.length)}) <= ${MAX_DOUBLE}`;
    }
  }
  const sql = `UPDATE ${physicalIdent(dialect, table)} SET ${[...terms, `"updatedAt" = ${dialect.placeholder(at - 1)}`].join(', ')} WHERE "objectId" = ${dialect.placeholder(at)}${guards} RETURNING ${returning ? returning.map((c) => physicalIdent(dialect, c)).join(', ') : '*'}`;
  return { sql, parameters };
}

/**
 * `SELECT <columns> FROM t WHERE "objectId" = ?` (every column when `columns` is omitted); `lock`
 * for the read of a read-modify-write inside a transaction.
 */
export function compileSelectById(dialect: SqlDialect, table: string, objectId: string, columns?: readonly string[], lock = false): CompiledQuery {
  const list = columns ? columns.map((c) => physicalIdent(dialect, c)).join(', ') : '*';
  const sql = `SELECT ${list} FROM ${physicalIdent(dialect, table)} WHERE "objectId" = ${dialect.placeholder(1)}${lock ? dialect.lockRow : ''}`;
  return { sql, parameters: [objectId] };
}

/** `DELETE FROM t WHERE "objectId" = ?`. */
export function compileDeleteById(dialect: SqlQueryDialect, table: string, objectId: string): CompiledQuery {
  return { sql: `DELETE FROM ${physicalIdent(dialect, table)} WHERE "objectId" = ${dialect.placeholder(1)}`, parameters: [objectId] };
}

/** Adds one member to a Relation's join table; an existing membership is kept as is. */
export function compileAddRelation(dialect: SqlDialect, joinTable: string, owningId: string, relatedId: string): CompiledQuery {
  const { prefix, suffix } = dialect.insertIgnore;
  const sql = `${prefix} ${physicalIdent(dialect, joinTable)} ("owningId", "relatedId") VALUES (${placeholders(dialect, 1, 2)})${suffix}`;
  return { sql, parameters: [owningId, relatedId] };
}

/** Removes one member from a Relation's join table. */
export function compileRemoveRelation(dialect: SqlQueryDialect, joinTable: string, owningId: string, relatedId: string): CompiledQuery {
  const sql = `DELETE FROM ${physicalIdent(dialect, joinTable)} WHERE "owningId" = ${dialect.placeholder(1)} AND "relatedId" = ${dialect.placeholder(2)}`;
  return { sql, parameters: [owningId, relatedId] };
}

/** Removes every member of one owner (its record was deleted). */
export function compileClearRelation(dialect: SqlQueryDialect, joinTable: string, owningId: string): CompiledQuery {
  return { sql: `DELETE FROM ${physicalIdent(dialect, joinTable)} WHERE "owningId" = ${dialect.placeholder(1)}`, parameters: [owningId] };
}
