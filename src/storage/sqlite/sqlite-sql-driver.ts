import { type DriverOp, type SyncSqlDriver, runSync } from '../sql/sql-program.js';
import type { SqliteDatabase } from './database-shape.js';
import type { StatementCache } from './statement-cache.js';

/**
 * Runs the operations of SQL programs (src/storage/sql/sql-program.ts) on better-sqlite3, at once:
 * statements with parameters through the statement cache, DDL (no parameters) through `exec`
 * without caching a statement for it, array rows through `raw(true)` (objects' values where the
 * driver has no `raw`), transactions as IMMEDIATE ones (savepoints when nested). Nothing races
 * here: writers hold the file's lock.
 */
export function sqliteSqlDriver(db: SqliteDatabase, statements: StatementCache): SyncSqlDriver {
  const driver: SyncSqlDriver = {
    perform(op: DriverOp): unknown {
      if (op.op === 'transaction') return db.transaction(() => runSync(op.program, driver)).immediate();
      const { sql, parameters } = op.query;
      switch (op.op) {
        case 'rows': {
          // better-sqlite3 keeps `raw` per statement, and one SQL text may be read both ways.
          const statement = statements.get(sql);
          return (statement.raw ? statement.raw(false) : statement).all(...parameters);
        }
        case 'row': {
          const statement = statements.get(sql);
          return (statement.raw ? statement.raw(false) : statement).get(...parameters);
        }
        case 'array': {
          const statement = statements.get(sql);
          if (statement.raw) return statement.raw(true).get(...parameters);
          const row = statement.get(...parameters) as Record<string, unknown> | undefined;
          return row && Object.values(row);
        }
        case 'arrays': {
          const statement = statements.get(sql);
          if (statement.raw) return statement.raw(true).all(...parameters);
          return (statement.all(...parameters) as Array<Record<string, unknown>>).map((row) => Object.values(row));
        }
        case 'write':
          return statements.get(sql).run(...parameters).changes;
        case 'schema':
          if (parameters.length === 0) return void db.exec(sql);
          return statements.get(sql).run(...parameters).changes;
      }
    },
  };
  return driver;
}
