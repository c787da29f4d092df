import { connectionGate } from '../core/connection-gate.js';
import { type SqliteDatabaseLike, immediateTransaction, sqliteIdentifier } from '../kv/sqlite-kv.js';
import type { CounterStore } from './port.js';
import { decideSlidingWindows, windowsHorizon } from './sliding-window.js';

export interface SqliteCounterOptions {
  /** A better-sqlite3 `Database` (typed by shape). The host owns and closes it. */
  database: SqliteDatabaseLike;
  /** Table of hits (default `svc_rate_hits`). */
  table?: string;
  /** Hits past their own expiry are swept from every key once every this many allowed hits (default 1000). */
  sweepEvery?: number;
}

/**
 * CounterStore over SQLite: one row per allowed hit `(key, at, expires)`. `consume` runs in a
 * synchronous `BEGIN IMMEDIATE` transaction (prune the key's expired hits, read them, decide,
 * insert), so it is atomic within the process and across processes sharing the file (the write
 * lock is taken before the read; other writers wait up to the connection's busy timeout). Limits
 * survive restarts.
 *
 * Each hit carries its own expiry: its time plus the longest window of the limits it was counted
 * under. Pruning and the periodic sweep of all keys delete only hits past that expiry, so a process
 * with short windows (captchas) never erases another process's per-day hits (SMS) in the same file.
 *
 * @example const counters = sqliteCounterStore({ database: new Database('data/app.db') });
 */
export function sqliteCounterStore(options: SqliteCounterOptions): CounterStore {
  const db = options.database;
  const name = options.table ?? 'svc_rate_hits';
  const t = sqliteIdentifier(name, 'sqlite-counters');
  const sweepEvery = options.sweepEvery ?? 1000;
  db.exec(`CREATE TABLE IF NOT EXISTS ${t} (key TEXT NOT NULL, at INTEGER NOT NULL, expires INTEGER)`);
  addExpiresColumn(db, t);
  db.exec(`CREATE INDEX IF NOT EXISTS ${sqliteIdentifier(`${name}_key_at`, 'sqlite-counters')} ON ${t} (key, at)`);
  db.exec(`CREATE INDEX IF NOT EXISTS ${sqliteIdentifier(`${name}_expires`, 'sqlite-counters')} ON ${t} (expires)`);
  // Rows written before hits carried an expiry (NULL) are pruned with the windows of their own key only.
  const prune = db.prepare(`DELETE FROM ${t} WHERE key = ? AND (expires <= ? OR (expires IS NULL AND at <= ?))`);
  const read = db.prepare(`SELECT at FROM ${t} WHERE key = ? ORDER BY at`);
  const insert = db.prepare(`INSERT INTO ${t} (key, at, expires) VALUES (?, ?, ?)`);
  const reset = db.prepare(`DELETE FROM ${t} WHERE key = ?`);
  const sweep = db.prepare(`DELETE FROM ${t} WHERE expires <= ?`);
  let writes = 0;

  // Statements wait while a storage transaction is open on a shared connection (else they would join it).
  const gate = connectionGate(db);
  return {
    consume(key, windows, now) {
      const horizon = windowsHorizon(windows);
      return gate.run(() => {
        const result = immediateTransaction(db, () => {
          prune.run(key, now, now - horizon);
          const hits = (read.all(key) as Array<{ at: number }>).map((row) => row.at);
          const decision = decideSlidingWindows(hits, windows, now);
          if (decision.allowed) insert.run(key, now, now + horizon);
          return decision;
        });
        if (result.allowed && ++writes % sweepEvery === 0) sweep.run(now);
        return result;
      });
    },
    reset: (key) => gate.run(() => void reset.run(key)),
  };
}

/** Adds the `expires` column to a table created by an earlier version (idempotent). */
function addExpiresColumn(db: SqliteDatabaseLike, table: string): void {
  const columns = db.prepare(`PRAGMA table_info(${table})`).all() as Array<{ name: string }>;
  if (!columns.some((c) => c.name === 'expires')) db.exec(`ALTER TABLE ${table} ADD COLUMN expires INTEGER`);
}
