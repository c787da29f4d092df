import type { TableSchema } from '../../query/plan.js';
import { compileCreateIndex, compileCreateTable, indexName } from '../../query/sql/ddl-compiler.js';
import { physicalIdent } from '../../query/sql/identifier.js';
import { shortIdentifier } from '../../query/sql/long-identifier.js';
import { postgresDialect } from '../../query/sql/postgres-dialect.js';
import { type SchemaStoreDialect, schemaStore } from '../sql/schema-store.js';
import { type SqlProgram, bindAsync, rows, schema as schemaOps } from '../sql/sql-program.js';
import type { PgQueryable } from './pg-client.js';
import { ensureAclReadColumn } from './pg-acl-read.js';
import { sqlState } from './pg-errors.js';
import { pgSqlDriver } from './pg-sql-driver.js';

const D = postgresDialect;

/**
 * The btree indexes of a table made before D160: none of their columns says `NULLS FIRST`, which
 * every index made since spells (unique ones included). Primary keys are not asked about.
 */
const OLD_INDEXES = `SELECT i.relname AS "name" FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid WHERE x.indrelid = to_regclass($1) AND NOT x.indisprimary AND i.relam = (SELECT oid FROM pg_am WHERE amname = 'btree') AND pg_get_indexdef(x.indexrelid) NOT LIKE '%NULLS FIRST%'`;

/**
 * Makes again the indexes of a table made before D160, whose columns are not spelled in the order
 * finds emit (no `NULLS FIRST`, no `objectId` tie-break): the `(createdAt, objectId)` index and
 * each declared one. Each is replaced, not supplemented (writes keep one entry per index): the new
 * one is built under a temporary name, the old one dropped and the new one renamed, in one
 * multi-statement query that PostgreSQL runs as one transaction, so a unique index never lapses.
 */
function* upgradeIndexes(table: string, schema: TableSchema): SqlProgram<void> {
  const found = yield* rows({ sql: OLD_INDEXES, parameters: [physicalIdent(D, table)] });
  if (found.length === 0) return;
  const old = new Set(found.map((row) => String(row.name)));
  const swap = (name: string, create: (name: string) => string): string =>
    [create(`${name}$new`), `DROP INDEX IF EXISTS ${physicalIdent(D, name)}`, `ALTER INDEX ${physicalIdent(D, `${name}$new`)} RENAME TO ${physicalIdent(D, name)}`].join('; ');
  const swaps: string[] = [];
  const createdAt = `${table}$$createdAt`;
  if (old.has(shortIdentifier(createdAt, 63))) {
    swaps.push(swap(createdAt, (name) => compileCreateTable(D, table, [])[1]!.sql.replace(physicalIdent(D, createdAt), () => physicalIdent(D, name))));
  }
  for (const index of schema.indexes) {
    const name = indexName(table, index);
    if (old.has(shortIdentifier(name, 63))) swaps.push(swap(name, () => compileCreateIndex(D, table, { ...index, name: `${index.name}$new` }, schema).sql));
  }
  yield* schemaOps(swaps.map((sql) => ({ sql, parameters: [] })));
}

/**
 * PostgreSQL's hooks of the shared schema store (src/storage/sql/schema-store.ts): an `ACL` column
 * gets its `ACL$read` GIN index (and the column first on a table that lacks it, D161); a table's
 * old indexes are made again on first sight (D160); a duplicate index row (23505) is another
 * instance's record of the same index.
 */
const pgSchemaDialect: SchemaStoreDialect = {
  dialect: D,
  aclReadColumn: (table) => ensureAclReadColumn(table),
  upgradeIndexes,
  duplicateKey: (error) => sqlState(error) === '23505',
};

/** The schema store's programs on PostgreSQL (the schema operations of sql-schema-core.ts compose them). */
export const pgSchemaPrograms = schemaStore(pgSchemaDialect);

/**
 * The schema store on a PostgreSQL client (the pool, or a transaction's connection: `inTransaction`),
 * answering asynchronously. Schema rows are claimed first, then the DDL runs with the claimed types,
 * every statement idempotent, so instances creating the same table or column at once converge (D62).
 */
export function pgSchemaStore(client: PgQueryable, inTransaction = false) {
  return bindAsync(pgSchemaPrograms, pgSqlDriver(client, { retryRaces: !inTransaction }));
}

/** The schema store of a PostgreSQL client. */
export type PgSchemaStore = ReturnType<typeof pgSchemaStore>;
