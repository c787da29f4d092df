import { type DriverOp, type SyncSqlDriver, runSync } from '../sql/sql-program.js';
import type { SqliteDatabase, SqliteStatement } from './database-shape.js';
import type { StatementCache } from './statement-cache.js';

/**
 * Runs the operations of SQL programs (src/storage/sql/sql-program.ts) on better-sqlite3, at once:
 * statements with parameters through the statement cache, DDL (no parameters) through `exec`, array
 * rows through `raw(true)` (objects' values where the driver has no `raw`), one row through `.get`,
 * transactions as IMMEDIATE ones (savepoints when nested). Nothing races here: writers hold the
 * file's lock. Only this driver switches the raw mode of the cache's statements.
 */
export function sqliteSqlDriver(db: SqliteDatabase, statements: StatementCache): SyncSqlDriver {
  // better-sqlite3 keeps `raw` per statement, and one SQL text may be read both ways: the statements
  // last switched to arrays, so reading objects switches back only those (no native call otherwise).
  const readingArrays = new WeakSet<SqliteStatement>();
  const forObjects = (statement: SqliteStatement): SqliteStatement => {
    if (!readingArrays.has(statement)) return statement;
    readingArrays.delete(statement);
    return statement.raw!(false);
  };
  const forArrays = (statement: SqliteStatement): SqliteStatement => {
    readingArrays.add(statement);
    return statement.raw!(true);
  };
  const driver: SyncSqlDriver = {
    perform(op: DriverOp): unknown {
      if (op.op === 'transaction') return db.transaction(() => runSync(op.program, driver)).immediate();
      const { sql, parameters } = op.query;
      // DDL (no parameters) through `exec`, without caching a statement for it.
      if (op.op === 'schema' && parameters.length === 0) return void db.exec(sql);
      const statement = statements.get(sql);
      switch (op.op) {
        case 'rows':
          return forObjects(statement).all(...parameters);
        case 'row':
          return forObjects(statement).get(...parameters);
        case 'array': {
          if (statement.raw) return forArrays(statement).get(...parameters);
          const row = statement.get(...parameters) as Record<string, unknown> | undefined;
          return row && Object.values(row);
        }
        case 'arrays':
          if (statement.raw) return forArrays(statement).all(...parameters);
          return (statement.all(...parameters) as Array<Record<string, unknown>>).map((row) => Object.values(row));
        case 'write':
        case 'schema':
          return statement.run(...parameters).changes;
      }
    },
  };
  return driver;
}
