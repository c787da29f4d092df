import { registerSqliteFunctions } from '../../query/sql/index.js';
import type { StorageAdapter, StorageCapabilities } from '../port.js';
import { connectionGate } from '../../core/connection-gate.js';
import type { SqliteDatabase } from './database-shape.js';
import { SqliteCore } from './sqlite-core.js';

export interface SqliteStorageOptions {
  /** An open better-sqlite3 `Database` (or anything with the same shape). */
  readonly database: SqliteDatabase;
  /** Milliseconds a statement waits for another process's lock (default 5000). */
  readonly busyTimeoutMs?: number;
  /** Close the database in `close()` (default true). */
  readonly closeDatabase?: boolean;
  /** Adapter name in logs (default `sqlite`). */
  readonly name?: string;
}

const CAPABILITIES: StorageCapabilities = Object.freeze({ transactions: true });

/**
 * Storage in SQLite through better-sqlite3: the embedded default. Sets WAL mode,
 * `synchronous=NORMAL` and a busy timeout; keeps table schemas in `_svc_schema`/`_svc_indexes` and
 * adds typed columns on demand (layout: src/query/sql/layout.ts); registers the SQL functions the
 * query compiler calls (`svc_regex`, ...). Every value is bound and every identifier validated and quoted.
 *
 * Operations are synchronous and atomic (one statement, or one IMMEDIATE transaction for
 * read-modify-write updates). `transaction(work)` holds the connection for `work`: other callers'
 * operations wait (they return promises) until it commits or rolls back. Nested transactions are
 * savepoints. Inside `work`, use only the `tx` adapter it receives. Other stores sharing the
 * connection should go through {@link connectionGate} so they wait too.
 *
 * Several processes may share a database file: cached schemas are reloaded when SQLite's schema
 * cookie moved (checked at most once per event-loop turn), and schema changes re-read the schema
 * inside their transaction (src/storage/sqlite/schema-version.ts).
 *
 * @example sqliteStorage({ database: new Database('app.db') })
 */
export function sqliteStorage(options: SqliteStorageOptions): StorageAdapter {
  const { database: db } = options;
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? 5000))}`);
  registerSqliteFunctions(db);
  const core = new SqliteCore(db);
  const gate = connectionGate(db);
  const name = options.name ?? 'sqlite';
  let depth = 0;

  const savepoint = async <T>(work: () => Promise<T>): Promise<T> => {
    const label = `svc_sp_${++depth}`;
    db.exec(depth === 1 ? 'BEGIN IMMEDIATE' : `SAVEPOINT ${label}`);
    try {
      const result = await work();
      db.exec(depth === 1 ? 'COMMIT' : `RELEASE ${label}`);
      return result;
    } catch (error) {
      if (depth === 1) {
        if (db.inTransaction) db.exec('ROLLBACK');
      } else {
        db.exec(`ROLLBACK TO ${label}`);
        db.exec(`RELEASE ${label}`);
      }
      core.invalidate();
      throw error;
    } finally {
      depth--;
    }
  };

  const tx: StorageAdapter = {
    name,
    capabilities: CAPABILITIES,
    getSchema: (ref) => core.getSchema(ref),
    ensureColumns: (ref, columns, limits) => core.ensureColumns(ref, columns, limits),
    createIndex: (ref, index) => core.createIndex(ref, index),
    insert: (ref, record) => core.insert(ref, record),
    get: (ref, id, projection) => core.get(ref, id, projection),
    update: (ref, id, ops, updatedAt) => core.update(ref, id, ops, updatedAt),
    delete: (ref, id) => core.delete(ref, id),
    find: (ref, plan) => core.find(ref, plan),
    count: (ref, where) => core.count(ref, where),
    aggregate: (ref, plan) => core.aggregate(ref, plan),
    transaction: (work) => savepoint(() => work(tx)),
    dropNamespace: (namespace) => core.dropNamespace(namespace),
    close: () => {},
  };

  return {
    name,
    capabilities: CAPABILITIES,
    getSchema: (ref) => gate.run(() => core.getSchema(ref)),
    ensureColumns: (ref, columns, limits) => gate.run(() => core.ensureColumns(ref, columns, limits)),
    createIndex: (ref, index) => gate.run(() => core.createIndex(ref, index)),
    insert: (ref, record) => gate.run(() => core.insert(ref, record)),
    get: (ref, id, projection) => gate.run(() => core.get(ref, id, projection)),
    update: (ref, id, ops, updatedAt) => gate.run(() => core.update(ref, id, ops, updatedAt)),
    delete: (ref, id) => gate.run(() => core.delete(ref, id)),
    find: (ref, plan) => gate.run(() => core.find(ref, plan)),
    count: (ref, where) => gate.run(() => core.count(ref, where)),
    aggregate: (ref, plan) => gate.run(() => core.aggregate(ref, plan)),
    transaction: (work) => gate.exclusive(() => savepoint(() => work(tx))),
    dropNamespace: (namespace) => gate.run(() => core.dropNamespace(namespace)),
    close: () =>
      gate.run(() => {
        core.invalidate();
        if (options.closeDatabase !== false && db.open !== false) db.close();
      }),
  };
}
