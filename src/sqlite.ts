/**
 * SQLite on better-sqlite3, the embedded default: storage, a KvStore and a CounterStore. All three can
 * share one database file; the storage adapter closes it, the stores leave it to their owner.
 *
 * @example
 * const db = new Database('data/app.db');
 * createService({ storage: sqliteStorage({ database: db }), kv: sqliteKvStore({ database: db }),
 *   counters: sqliteCounterStore({ database: db }), applications: [...] });
 */
export { type SqliteStorageOptions, openSqlite, sqliteStorage } from './storage/sqlite/index.js';
export type { SqliteDatabase, SqliteStatement, SqliteTransactionFn } from './storage/sqlite/index.js';
export { type SqliteKvOptions, sqliteKvStore } from './kv/sqlite-kv.js';
export { type SqliteCounterOptions, sqliteCounterStore } from './counters/sqlite-counter-store.js';
/** The gate of a shared better-sqlite3 connection; route your own statements on it through `run`. */
export { connectionGate } from './core/connection-gate.js';
