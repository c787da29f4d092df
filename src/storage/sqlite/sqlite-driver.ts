import { createRequire } from 'node:module';
import { isAbsolute } from 'node:path';
import { configError } from '../../core/errors.js';
import type { SqliteDatabase } from './database-shape.js';

export type DatabaseConstructor = new (filename: string, options?: { readonly?: boolean; fileMustExist?: boolean; timeout?: number }) => SqliteDatabase;

/** Where this module resolves packages from: its own file. */
export function driverBase(): string {
  // __filename exists in the CommonJS build (in an eval'd worker it is not a path), import.meta.url
  // in the ES module build.
  return typeof __filename === 'string' && isAbsolute(__filename) ? __filename : import.meta.url;
}

/** better-sqlite3's `Database` constructor, resolved from `from` (default: this module's location). */
export function loadDriver(from: string = driverBase()): DatabaseConstructor {
  try {
    const loaded = createRequire(from)('better-sqlite3') as DatabaseConstructor | { default: DatabaseConstructor };
    return typeof loaded === 'function' ? loaded : loaded.default;
  } catch (error) {
    throw configError('sqlite', `openSqlite needs the better-sqlite3 package (npm install better-sqlite3): ${(error as Error).message}`);
  }
}
