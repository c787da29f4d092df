import type { SqlOp, SyncSqlDriver } from '../sql/sql-program.js';
import type { SqliteDatabase } from './database-shape.js';
import type { StatementCache } from './statement-cache.js';

/**
 * Runs the operations of SQL programs (src/storage/sql/sql-program.ts) on better-sqlite3, at once:
 * statements with parameters through the statement cache, DDL (no parameters) through `exec`
 * without caching a statement for it. Nothing races here: writers hold the file's lock.
 */
export function sqliteSqlDriver(db: SqliteDatabase, statements: StatementCache): SyncSqlDriver {
  return {
    perform(op: SqlOp): unknown {
      const { sql, parameters } = op.query;
      if (op.op === 'rows') return statements.get(sql).all(...parameters);
      if (op.op === 'schema' && parameters.length === 0) db.exec(sql);
      else statements.get(sql).run(...parameters);
      return undefined;
    },
  };
}
