import { compileRecreateIndexes } from '../../query/sql/ddl-compiler.js';
import { sqliteAdapterDialect } from '../../query/sql/sqlite-dialect.js';
import { type SchemaStoreDialect, schemaStore } from '../sql/schema-store.js';
import { bindSync } from '../sql/sql-program.js';
import type { SqliteDatabase } from './database-shape.js';
import { sqliteSqlDriver } from './sqlite-sql-driver.js';
import type { StatementCache } from './statement-cache.js';

/**
 * SQLite's hooks of the shared schema store (src/storage/sql/schema-store.ts). An `ACL` column added
 * to a table makes its declared indexes again with `ACL$read` (D147), one pass over the table per
 * index; a table made with the column has no declared index yet. Schema writes run in one IMMEDIATE
 * transaction after their check, so no other process records the same index meanwhile.
 */
const sqliteSchemaDialect: SchemaStoreDialect = {
  dialect: sqliteAdapterDialect,
  *aclReadColumn(table, schema, created) {
    if (created) return;
    for (const query of compileRecreateIndexes(sqliteAdapterDialect, table, schema, true)) yield { op: 'schema', query };
  },
  *upgradeIndexes() {},
  duplicateKey: () => false,
};

/** The schema store's programs on SQLite (the schema operations of sql-schema-core.ts compose them). */
export const sqliteSchemaPrograms = schemaStore(sqliteSchemaDialect);

/** The schema store on one SQLite connection, answering synchronously. The caller runs every write inside one transaction. */
export function sqliteSchemaStore(db: SqliteDatabase, statements: StatementCache) {
  return bindSync(sqliteSchemaPrograms, sqliteSqlDriver(db, statements));
}

/** The schema store of a SQLite connection. */
export type SqliteSchemaStore = ReturnType<typeof sqliteSchemaStore>;
