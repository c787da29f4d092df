export type { SqliteDatabase, SqliteStatement, SqliteTransactionFn } from './database-shape.js';
export { openSqlite } from './open-sqlite.js';
export { type SqliteStorageOptions, sqliteStorage } from './sqlite-adapter.js';
export { connectionGate } from '../../core/connection-gate.js';
