import { configError } from '../core/errors.js';
import { connectionGate } from '../core/connection-gate.js';
import type { KvStore } from './port.js';

/** The few better-sqlite3 `Statement` methods svcbase calls (typed by shape: no import of the driver). */
export interface SqliteStatementLike {
  run(...params: unknown[]): { changes: number };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}

/**
 * The few better-sqlite3 `Database` methods svcbase calls. Pass `new Database(file)`; any version
 * with `RETURNING` support (SQLite 3.35+) works.
 */
export interface SqliteDatabaseLike {
  prepare(sql: string): SqliteStatementLike;
  exec(sql: string): unknown;
  /** True while a transaction is open on this connection (better-sqlite3 exposes it). */
  readonly inTransaction?: boolean;
}

/**
 * Runs `work` inside `BEGIN IMMEDIATE ... COMMIT` (a savepoint when a transaction is already open):
 * the write lock is taken first, so a read-then-write inside `work` is atomic across connections and
 * processes sharing the file. `work` must be synchronous.
 */
export function immediateTransaction<T>(db: SqliteDatabaseLike, work: () => T): T {
  const nested = db.inTransaction === true;
  db.exec(nested ? 'SAVEPOINT svc_immediate' : 'BEGIN IMMEDIATE');
  try {
    const result = work();
    db.exec(nested ? 'RELEASE svc_immediate' : 'COMMIT');
    return result;
  } catch (error) {
    db.exec(nested ? 'ROLLBACK TO svc_immediate; RELEASE svc_immediate' : 'ROLLBACK');
    throw error;
  }
}

export interface SqliteKvOptions {
  database: SqliteDatabaseLike;
  /** Table name (default `svc_kv`); letters, digits and `_` only. */
  table?: string;
  /** Expired rows are swept once every this many writes (default 1000). */
  sweepEvery?: number;
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** Checks a table name given in options; it is interpolated into SQL, so it must be an identifier. */
export function sqliteIdentifier(name: string, scope: string): string {
  if (!IDENT.test(name)) throw configError(scope, `invalid table name '${name}'`);
  return `"${name}"`;
}

/**
 * KvStore over SQLite (better-sqlite3). Every method is one statement, so it is atomic across
 * connections and processes sharing the file: `take` is `DELETE ... RETURNING`, `putIfAbsent` an
 * upsert whose update only fires on an expired row, `increment` an upsert with `RETURNING`.
 * Times are epoch milliseconds from the caller. The host owns (and closes) the database.
 *
 * @example const kv = sqliteKvStore({ database: new Database('data/kv.db') });
 */
export function sqliteKvStore(options: SqliteKvOptions): KvStore {
  const db = options.database;
  const t = sqliteIdentifier(options.table ?? 'svc_kv', 'sqlite-kv');
  const sweepEvery = options.sweepEvery ?? 1000;
  db.exec(`CREATE TABLE IF NOT EXISTS ${t} (key TEXT PRIMARY KEY, value TEXT NOT NULL, expires_at INTEGER NOT NULL) WITHOUT ROWID`);
  const put = db.prepare(
    `INSERT INTO ${t} (key, value, expires_at) VALUES (?, ?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at`,
  );
  const putIfAbsent = db.prepare(
    `INSERT INTO ${t} (key, value, expires_at) VALUES (?, ?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at WHERE ${t}.expires_at <= ?`,
  );
  const get = db.prepare(`SELECT value FROM ${t} WHERE key = ? AND expires_at > ?`);
  const take = db.prepare(`DELETE FROM ${t} WHERE key = ? AND expires_at > ? RETURNING value`);
  const del = db.prepare(`DELETE FROM ${t} WHERE key = ?`);
  const increment = db.prepare(
    `INSERT INTO ${t} (key, value, expires_at) VALUES (?, CAST(CAST(? AS INTEGER) AS TEXT), ?) ON CONFLICT(key) DO UPDATE SET
       value = CASE WHEN ${t}.expires_at <= ? THEN excluded.value ELSE CAST(CAST(${t}.value AS INTEGER) + CAST(? AS INTEGER) AS TEXT) END,
       expires_at = CASE WHEN ${t}.expires_at <= ? THEN excluded.expires_at ELSE ${t}.expires_at END
     RETURNING value`,
  );
  const sweep = db.prepare(`DELETE FROM ${t} WHERE expires_at <= ?`);
  let writes = 0;
  let lastNow = Number.MIN_SAFE_INTEGER;
  /** Sweeps expired rows every `sweepEvery` writes; `put` has no `now`, so it uses the latest seen. */
  const noteWrite = (now: number) => {
    lastNow = Math.max(lastNow, now);
    if (++writes % sweepEvery === 0) sweep.run(lastNow);
  };
  const valueOf = (row: unknown): string | null => (row ? (row as { value: string }).value : null);

  // Statements wait while a storage transaction is open on a shared connection (else they would join it).
  const gate = connectionGate(db);
  return {
    put: (key, value, expiresAt) =>
      gate.run(() => {
        put.run(key, value, expiresAt);
        noteWrite(lastNow);
      }),
    putIfAbsent: (key, value, expiresAt, now) =>
      gate.run(() => {
        const stored = putIfAbsent.run(key, value, expiresAt, now).changes;
        noteWrite(now);
        return stored > 0;
      }),
    get: (key, now) =>
      gate.run(() => {
        if (now > lastNow) lastNow = now;
        return valueOf(get.get(key, now));
      }),
    take: (key, now) =>
      gate.run(() => {
        if (now > lastNow) lastNow = now;
        return valueOf(take.get(key, now));
      }),
    delete: (key) => gate.run(() => void del.run(key)),
    increment(key, by, expiresAt, now) {
      if (!Number.isSafeInteger(by)) throw configError('sqlite-kv', `increment needs an integer, got ${by}`);
      return gate.run(() => {
        const row = increment.get(key, by, expiresAt, now, by, now) as { value: string };
        noteWrite(now);
        return Number(row.value);
      });
    },
  };
}
