import { configError } from '../core/errors.js';
import type { KvStore } from '../kv/port.js';
import { type PostgresClientLike, ensureSchema, once, postgresIdentifier, postgresTable } from './client.js';

export interface PostgresKvOptions {
  /** A porsager `postgres` client (typed by shape). The host owns it and ends it. */
  sql: PostgresClientLike;
  /** Table name (default `svc_kv`). */
  table?: string;
  /** Schema of the table (default: the connection's search_path). */
  schema?: string;
  /** Expired rows are swept once every this many writes of this instance (default 1000). */
  sweepEvery?: number;
}

/**
 * KvStore on a PostgreSQL table `(key text primary key, value text, expires_at bigint)`, shared by
 * every instance on the database. Each method is one statement, hence atomic across instances:
 * `take` is `DELETE ... RETURNING`, `putIfAbsent` an upsert whose update only fires on an expired
 * row, `increment` an upsert with `RETURNING`. Times are the caller's epoch ms, as the contract says.
 * The table is created on first use (`CREATE TABLE IF NOT EXISTS`, retried when instances race).
 *
 * @example const kv = postgresKvStore({ sql: postgres(process.env.SVC_DATABASE_URL) });
 */
export function postgresKvStore(options: PostgresKvOptions): KvStore {
  const sql = options.sql;
  const t = postgresTable(options.table ?? 'svc_kv', options.schema, 'postgres-kv');
  const index = postgresIdentifier(`${options.table ?? 'svc_kv'}_expires`, 'postgres-kv');
  const sweepEvery = options.sweepEvery ?? 1000;
  const ready = once(() =>
    ensureSchema(sql, [
      `CREATE TABLE IF NOT EXISTS ${t} (key text PRIMARY KEY, value text NOT NULL, expires_at bigint NOT NULL)`,
      `CREATE INDEX IF NOT EXISTS ${index} ON ${t} (expires_at)`,
    ]),
  );
  const upsert = `INSERT INTO ${t} AS t (key, value, expires_at) VALUES ($1, $2, $3) ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at`;
  const statements = {
    put: upsert,
    putIfAbsent: `${upsert} WHERE t.expires_at <= $4 RETURNING 1 AS stored`,
    get: `SELECT value FROM ${t} WHERE key = $1 AND expires_at > $2`,
    take: `DELETE FROM ${t} WHERE key = $1 AND expires_at > $2 RETURNING value`,
    delete: `DELETE FROM ${t} WHERE key = $1`,
    increment: `INSERT INTO ${t} AS t (key, value, expires_at) VALUES ($1, $2::bigint::text, $3) ON CONFLICT (key) DO UPDATE SET
      value = CASE WHEN t.expires_at <= $4 THEN excluded.value ELSE (t.value::bigint + $2::bigint)::text END,
      expires_at = CASE WHEN t.expires_at <= $4 THEN excluded.expires_at ELSE t.expires_at END
      RETURNING value`,
    sweep: `DELETE FROM ${t} WHERE expires_at <= $1`,
  };
  const run = async (statement: string, params: unknown[]) => {
    await ready();
    return sql.unsafe(statement, params, { prepare: true });
  };
  let writes = 0;
  let lastNow = Number.MIN_SAFE_INTEGER;
  /** Every `sweepEvery` writes, deletes expired rows (by the latest `now` seen; `put` has none). */
  const noteWrite = async (now: number) => {
    if (now > lastNow) lastNow = now;
    if (++writes % sweepEvery === 0) await run(statements.sweep, [String(lastNow)]);
  };
  /** PostgreSQL text cannot hold U+0000: no such key can be stored, so reads find nothing. */
  const storable = (text: string) => !text.includes('\u0000');
  const refuse = (what: string): never => {
    throw configError('postgres-kv', `${what} contains U+0000, which PostgreSQL text cannot store`);
  };
  const valueOf = (rows: Array<Record<string, unknown>>): string | null => (rows.length > 0 ? (rows[0]!.value as string) : null);
  return {
    async put(key, value, expiresAt) {
      if (!storable(key) || !storable(value)) refuse('the key or value');
      await run(statements.put, [key, value, String(expiresAt)]);
      await noteWrite(lastNow);
    },
    async putIfAbsent(key, value, expiresAt, now) {
      if (!storable(key) || !storable(value)) refuse('the key or value');
      const rows = await run(statements.putIfAbsent, [key, value, String(expiresAt), String(now)]);
      await noteWrite(now);
      return rows.length > 0;
    },
    async get(key, now) {
      if (now > lastNow) lastNow = now;
      if (!storable(key)) return null;
      return valueOf(await run(statements.get, [key, String(now)]));
    },
    async take(key, now) {
      if (now > lastNow) lastNow = now;
      if (!storable(key)) return null;
      return valueOf(await run(statements.take, [key, String(now)]));
    },
    async delete(key) {
      if (!storable(key)) return;
      await run(statements.delete, [key]);
    },
    increment(key, by, expiresAt, now) {
      if (!Number.isSafeInteger(by)) throw configError('postgres-kv', `increment needs an integer, got ${by}`);
      if (!storable(key)) refuse('the key');
      return run(statements.increment, [key, String(by), String(expiresAt), String(now)]).then(
        async (rows) => {
          await noteWrite(now);
          return Number(rows[0]!.value);
        },
        (error: unknown) => {
          // 22P02: the live value is not an integer (the cast failed); 22003: it would overflow bigint.
          const code = (error as { code?: unknown }).code;
          if (code === '22P02' || code === '22003') throw configError('postgres-kv', `key '${key}' does not hold an integer`);
          throw error;
        },
      );
    },
  };
}
