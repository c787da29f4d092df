import { configError } from '../core/errors.js';
import { retryingDdl } from '../storage/postgres/pg-errors.js';

/** One result row as the driver returns it (int8 columns arrive as strings). */
export type PostgresRow = Record<string, unknown>;

/** What a query needs: porsager `postgres`'s `sql.unsafe` (on the pool or inside a transaction). */
export interface PostgresQueryLike {
  unsafe(query: string, parameters?: unknown[], options?: { prepare?: boolean }): Promise<PostgresRow[]>;
}

/**
 * The few methods of a porsager `postgres` 3.4+ client (`const sql = postgres(url)`) the PostgreSQL
 * stores and bus call, typed by shape: svcbase never imports the driver, so the host picks its
 * version and options. The host owns the client: the stores never end it.
 */
export interface PostgresClientLike extends PostgresQueryLike {
  /** A connection of the pool for one transaction (`sql.reserve()`); see storage/postgres/pg-transaction.ts for why not `sql.begin`. */
  reserve(): Promise<PostgresQueryLike & { release(): void }>;
  /**
   * LISTEN on a dedicated connection (porsager keeps one per client, and listens again after it
   * reconnects). Resolves once the LISTEN ran.
   */
  listen(channel: string, onnotify: (payload: string) => void, onlisten?: () => void): Promise<{ unlisten(): Promise<void> }>;
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** A checked, quoted identifier for names given in options (they are interpolated into SQL). */
export function postgresIdentifier(name: string, scope: string): string {
  if (typeof name !== 'string' || !IDENT.test(name)) throw configError(scope, `invalid identifier '${String(name)}'`);
  return `"${name}"`;
}

/** `"schema"."table"` (or just `"table"`) from options, both checked. */
export function postgresTable(table: string, schema: string | undefined, scope: string): string {
  const t = postgresIdentifier(table, scope);
  return schema === undefined ? t : `${postgresIdentifier(schema, scope)}.${t}`;
}

/**
 * Runs schema statements (each `IF NOT EXISTS`, outside any transaction, no advisory locks, so
 * Citus-like engines keep working), retrying the races concurrent instances can hit with the storage
 * adapter's own rule (pg-errors.ts: serialization failures, deadlocks, catalog duplicates such as
 * 42710 "type already exists" from two `CREATE TABLE IF NOT EXISTS` at once).
 */
export async function ensureSchema(sql: PostgresQueryLike, statements: readonly string[]): Promise<void> {
  for (const statement of statements) await retryingDdl(() => sql.unsafe(statement));
}

/** A promise made once on first use: the store's schema, created lazily so factories stay synchronous. */
export function once(make: () => Promise<void>): () => Promise<void> {
  let pending: Promise<void> | undefined;
  return () => {
    pending ??= make().catch((error: unknown) => {
      pending = undefined; // the next call tries again (the database may have been down)
      throw error;
    });
    return pending;
  };
}

/** The server's clock in epoch milliseconds, as SQL (`clock_timestamp()`: the time the row is locked, not the transaction's start). */
export const SQL_SERVER_NOW_MS = `(extract(epoch from clock_timestamp()) * 1000)::bigint`;
