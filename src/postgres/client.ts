import { configError } from '../core/errors.js';

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

/** SQLSTATEs of a schema statement racing another instance's identical one: worth one more try. */
const DDL_RETRY = new Set(['40001', '40P01', '23505', '42P07']);

/**
 * Runs schema statements (each `IF NOT EXISTS`, outside any transaction, no advisory locks, so
 * Citus-like engines keep working), retrying the races concurrent instances can hit (a serialization
 * failure, a deadlock, the catalog's unique index on a type or relation name).
 */
export async function ensureSchema(sql: PostgresQueryLike, statements: readonly string[]): Promise<void> {
  for (const statement of statements) {
    for (let attempt = 1; ; attempt++) {
      try {
        await sql.unsafe(statement);
        break;
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        if (attempt >= 5 || typeof code !== 'string' || !DDL_RETRY.has(code)) throw error;
      }
    }
  }
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
