import { connectionGate } from '../core/connection-gate.js';
import { type SqliteDatabaseLike, immediateTransaction, sqliteIdentifier } from '../kv/sqlite-kv.js';
import type { CounterStore } from './port.js';
import { decideSlidingWindows, windowsHorizon } from './sliding-window.js';

export interface SqliteCounterOptions {
  /** A better-sqlite3 `Database` (typed by shape). The host owns and closes it. */
  database: SqliteDatabaseLike;
  /** Table of hits (default `svc_rate_hits`). */
  table?: string;
  /** Hits older than the longest window seen are swept once every this many allowed hits (default 1000). */
  sweepEvery?: number;
}

/**
 * CounterStore over SQLite: one row per allowed hit `(key, at)`. `consume` runs in a synchronous
 * `BEGIN IMMEDIATE` transaction (prune the key's old hits, read them, decide, insert), so it is atomic
 * within the process and across processes sharing the file (the write lock is taken before the read;
 * other writers wait up to the connection's busy timeout). Limits survive restarts.
 *
 * A key's hits are pruned with the windows of the current call: use one set of windows per key.
 *
 * @example const counters = sqliteCounterStore({ database: new Database('data/app.db') });
 */
export function sqliteCounterStore(options: SqliteCounterOptions): CounterStore {
  const db = options.database;
  const t = sqliteIdentifier(options.table ?? 'svc_rate_hits', 'sqlite-counters');
  const index = sqliteIdentifier(`${options.table ?? 'svc_rate_hits'}_key_at`, 'sqlite-counters');
  const sweepEvery = options.sweepEvery ?? 1000;
  db.exec(`CREATE TABLE IF NOT EXISTS ${t} (key TEXT NOT NULL, at INTEGER NOT NULL)`);
  db.exec(`CREATE INDEX IF NOT EXISTS ${index} ON ${t} (key, at)`);
  const prune = db.prepare(`DELETE FROM ${t} WHERE key = ? AND at <= ?`);
  const read = db.prepare(`SELECT at FROM ${t} WHERE key = ? ORDER BY at`);
  const insert = db.prepare(`INSERT INTO ${t} (key, at) VALUES (?, ?)`);
  const reset = db.prepare(`DELETE FROM ${t} WHERE key = ?`);
  const sweep = db.prepare(`DELETE FROM ${t} WHERE at <= ?`);
  let writes = 0;
  let longest = 0;

  // Statements wait while a storage transaction is open on a shared connection (else they would join it).
  const gate = connectionGate(db);
  return {
    consume(key, windows, now) {
      const horizon = windowsHorizon(windows);
      longest = Math.max(longest, horizon);
      return gate.run(() => {
        const result = immediateTransaction(db, () => {
          prune.run(key, now - horizon);
          const hits = (read.all(key) as Array<{ at: number }>).map((row) => row.at);
          const decision = decideSlidingWindows(hits, windows, now);
          if (decision.allowed) insert.run(key, now);
          return decision;
        });
        if (result.allowed && ++writes % sweepEvery === 0) sweep.run(now - longest);
        return result;
      });
    },
    reset: (key) => gate.run(() => void reset.run(key)),
  };
}
