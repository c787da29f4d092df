import type { StorageAdapter } from '../port.js';
import { type SqliteStorageOptions, sqliteStorage } from './sqlite-adapter.js';
import { loadDriver } from './sqlite-driver.js';

/**
 * Opens (creating when missing) a SQLite database file, or `:memory:`, with better-sqlite3 and wraps
 * it in {@link sqliteStorage}. better-sqlite3 is an optional peer dependency: install it in the host.
 * The adapter closes the database in `close()`.
 *
 * @example const storage = openSqlite('./data/app.db');
 */
export function openSqlite(filename: string, options: Omit<SqliteStorageOptions, 'database'> = {}): StorageAdapter {
  const Database = loadDriver();
  return sqliteStorage({ ...options, database: new Database(filename) });
}
