import { reservedTransaction } from '../storage/postgres/pg-transaction.js';
import { configError } from '../core/errors.js';
import type { CounterStore } from '../counters/port.js';
import { decideSlidingWindows, windowsHorizon } from '../counters/sliding-window.js';
import { type PostgresClientLike, SQL_SERVER_NOW_MS, ensureSchema, once, postgresIdentifier, postgresTable } from './client.js';

/** Whose time a hit is recorded at: the database server's (one time line for all instances) or the caller's `now`. */
export type PostgresCounterClock = 'server' | 'caller';

export interface PostgresCounterOptions {
  /** A porsager `postgres` client (typed by shape). The host owns it and ends it. */
  sql: PostgresClientLike;
  /** Table name (default `svc_rate`). */
  table?: string;
  /** Schema of the table (default: the connection's search_path). */
  schema?: string;
  /** Default `'server'`: `clock_timestamp()` of the database, read after the key's row is locked. `'caller'` for FakeClock tests. */
  clock?: PostgresCounterClock;
  /**
   * Wait for the commit to reach disk (default false: `SET LOCAL synchronous_commit = off` for the
   * store's own transactions, so a database crash may forget the last fraction of a second of hits,
   * like Redis without AOF; checks are several times faster). True keeps the server's setting.
   */
  durable?: boolean;
  /** Keys whose every hit has left every window are deleted once every this many allowed hits (default 1000). */
  sweepEvery?: number;
}

/**
 * CounterStore on a PostgreSQL table: one row per key holding its hit times (`bigint[]`, ascending),
 * the longest window it was counted under and its expiry. `consume` is one short transaction: an
 * upsert that locks the key's row and returns its hits (and the server's time), the sliding-window
 * decision (`decideSlidingWindows`, exactly as every other store), and only when allowed an update
 * recording the hit. The row lock serializes callers of one key across every instance, so of 1,000
 * concurrent consumes of a 1-hit window exactly one is allowed; other keys never wait.
 *
 * @example const counters = postgresCounterStore({ sql: postgres(process.env.SVC_DATABASE_URL) });
 */
export function postgresCounterStore(options: PostgresCounterOptions): CounterStore {
  const sql = options.sql;
  const name = options.table ?? 'svc_rate';
  const t = postgresTable(name, options.schema, 'postgres-counters');
  const index = postgresIdentifier(`${name}_expires`, 'postgres-counters');
  const clock = options.clock ?? 'server';
  if (clock !== 'server' && clock !== 'caller') throw configError('postgres-counters', `clock must be 'server' or 'caller', got '${String(clock)}'`);
  const sweepEvery = options.sweepEvery ?? 1000;
  const durable = options.durable ?? false;
  const ready = once(() =>
    ensureSchema(sql, [
      `CREATE TABLE IF NOT EXISTS ${t} (key text PRIMARY KEY, hits bigint[] NOT NULL, horizon bigint NOT NULL, expires_at bigint NOT NULL)`,
      `CREATE INDEX IF NOT EXISTS ${index} ON ${t} (expires_at)`,
    ]),
  );
  // ON CONFLICT DO UPDATE takes the row lock (waiting for a concurrent consumer of the key) and returns the row.
  const lock = `INSERT INTO ${t} AS t (key, hits, horizon, expires_at) VALUES ($1, '{}', 0, 0)
    ON CONFLICT (key) DO UPDATE SET key = excluded.key
    RETURNING t.hits::text AS hits, t.horizon, ${clock === 'server' ? SQL_SERVER_NOW_MS : '$2::bigint'} AS now`;
  const record = `UPDATE ${t} SET hits = $2::bigint[], horizon = $3, expires_at = $4 WHERE key = $1`;
  const sweep = `DELETE FROM ${t} WHERE expires_at <= $1`;
  const reset = `DELETE FROM ${t} WHERE key = $1`;
  let allowedHits = 0;
  return {
    async consume(key, windows, callerNow) {
      if (key.includes('\u0000')) throw configError('postgres-counters', 'a key cannot contain U+0000');
      await ready();
      const windowHorizon = windowsHorizon(windows);
      const result = await reservedTransaction(sql, '', async (tx) => {
        // Sent without waiting: the driver pipelines it with the lock on the transaction's connection.
        const relaxed = durable ? undefined : tx.unsafe('SET LOCAL synchronous_commit = off');
        const [row] = await tx.unsafe(lock, clock === 'server' ? [key] : [key, String(callerNow)], { prepare: true });
        await relaxed;
        const now = Number(row!.now);
        // The longest window this key was ever counted under: a caller with shorter windows never drops another's hits.
        const horizon = Math.max(Number(row!.horizon), windowHorizon);
        const hits = parseHits(row!.hits as string).filter((at) => at > now - horizon);
        const decision = decideSlidingWindows(hits, windows, now);
        if (decision.allowed) {
          hits.push(now);
          hits.sort((a, b) => a - b);
          await tx.unsafe(record, [key, `{${hits.join(',')}}`, String(horizon), String(now + horizon)], { prepare: true });
        }
        return { decision, now };
      });
      if (result.decision.allowed && ++allowedHits % sweepEvery === 0) await sql.unsafe(sweep, [String(result.now)], { prepare: true });
      return result.decision;
    },
    async reset(key) {
      if (key.includes('\u0000')) return;
      await ready();
      await sql.unsafe(reset, [key], { prepare: true });
    },
  };
}

/** `{1,2,3}` (an int8[] as text) to numbers. */
function parseHits(text: string): number[] {
  return text.length <= 2 ? [] : text.slice(1, -1).split(',').map(Number);
}
