import { createRequire } from 'node:module';
import { configError } from '../../core/errors.js';
import type { StorageAdapter } from '../port.js';
import type { SqliteDatabase } from './database-shape.js';
import { type SqliteStorageOptions, sqliteStorage } from './sqlite-adapter.js';

type DatabaseConstructor = new (filename: string, options?: { timeout?: number }) => SqliteDatabase;

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

function loadDriver(): DatabaseConstructor {
  // __filename exists in the CommonJS build, import.meta.url in the ES module build.
  const from = typeof __filename === 'string' ? __filename : import.meta.url;
  try {
    const loaded = createRequire(from)('better-sqlite3') as DatabaseConstructor | { default: DatabaseConstructor };
    return typeof loaded === 'function' ? loaded : loaded.default;
  } catch (error) {
    throw configError('sqlite', `openSqlite needs the better-sqlite3 package (npm install better-sqlite3): ${(error as Error).message}`);
  }
}
