import type { SqliteDatabase } from './database-shape.js';

const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * Switches the database to write-ahead logging. Two processes opening a fresh file at once both try
 * the switch; SQLite answers SQLITE_BUSY to the loser without calling the busy handler (the change
 * needs an exclusive lock), so the switch is retried every few milliseconds until `busyTimeoutMs`
 * has passed. A file already in WAL mode (every open after the first) needs no lock at all.
 */
export function enableWal(db: SqliteDatabase, busyTimeoutMs: number): void {
  const deadline = Date.now() + busyTimeoutMs;
  for (;;) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'SQLITE_BUSY' || Date.now() >= deadline) throw error;
      Atomics.wait(pause, 0, 0, 5);
    }
  }
}
