import { type Clock, systemClock } from '../../core/clock.js';
import { adapterShell } from '../kit/adapter-shell.js';
import type { StorageAdapter, StorageCapabilities } from '../port.js';
import { type PgClient, type PgQueryable, type PgTransactionClient, pgTransaction } from './pg-client.js';
import { type Atomically, PgCore, PgSchemaCache } from './pg-core.js';
import { isRetryable } from './pg-errors.js';
import { pgSchemaStore } from './pg-schema-store.js';

export interface PostgresStorageOptions {
  /**
   * A porsager `postgres` (3.x) client, or anything of the same shape (pg-client.ts). Its default
   * type parsers and serializers are expected (jsonb parsed, JSON parameters encoded by the driver).
   * Point it at the schema to use with the connection's `search_path`
   * (`postgres(url, { connection: { search_path: 'svc' } })`).
   */
  readonly sql: PgClient;
  /** Adapter name in logs (default `postgres`). */
  readonly name?: string;
  /** End the client in `close()` (default false: the owner ends it). */
  readonly closeClient?: boolean;
  /**
   * How long a cached table schema is trusted before it is read again, in ms (default 2000): the
   * longest a column or index another instance added stays invisible to this one's reads.
   */
  readonly schemaCacheMs?: number;
  /** Clock of the schema cache (tests). */
  readonly clock?: Clock;
  /**
   * Budget of a read (find, count, aggregate) whose caller names none, in ms (default 5000): past it
   * the statement is cancelled on the server and the read answers 11090. Callers' `budgetMs` wins.
   */
  readonly queryBudgetMs?: number;
}

const CAPABILITIES: StorageCapabilities = Object.freeze({ transactions: true, updateReturnsBefore: true });

/**
 * Storage in PostgreSQL through a porsager `postgres` client, for several svcbase instances over one
 * database (docs/scaling.md). Tables are laid out as src/query/sql/layout.ts says, with the
 * PostgreSQL types of D44 (typed columns, Dates as bigint epoch ms, jsonb for File/Array/Object);
 * every statement comes from the SQL compilers and runs as a prepared statement with bound values.
 *
 * - Updates are atomic: top-level set/unset/increment are one `UPDATE ... RETURNING`; array ops and
 *   dot paths read the row `FOR UPDATE` and write it back in one transaction.
 * - Unique violations become SvcError 401 naming the columns (the users feature then answers
 *   202/203/209).
 * - Schema changes run outside transactions (unless called inside `transaction`), every statement
 *   `IF NOT EXISTS`, retried on 40001/40P01 and catalog races; no advisory locks (D62), so
 *   instances racing to create one table or column converge, and of two racing types one wins
 *   (the loser gets 111).
 * - `transaction(work)` is `sql.begin` (nested: savepoints); inside `work` use only the `tx` adapter.
 * - A find, count or aggregate past its budget is cancelled on the server and answers 11090 (D197).
 *
 * @example
 * import postgres from 'postgres';
 * const sql = postgres(process.env.SVC_DATABASE_URL!);
 * createService({ storage: postgresStorage({ sql }), applications: [...] });
 */
export function postgresStorage(options: PostgresStorageOptions): StorageAdapter {
  const { sql } = options;
  // The bookkeeping tables are created on first use (once; tried again after a failure).
  let bookkeeping: Promise<void> | null = null;
  const ready = (): Promise<void> => {
    bookkeeping ??= pgSchemaStore(sql).createBookkeeping().catch((error: unknown) => {
      bookkeeping = null;
      throw error;
    });
    return bookkeeping;
  };
  const cache = new PgSchemaCache(options.clock ?? systemClock, Math.max(0, options.schemaCacheMs ?? 2000));
  const name = options.name ?? 'postgres';

  /** An adapter whose statements run on `client`; `begin` opens a transaction (or a savepoint). */
  const view = (
    client: PgQueryable,
    begin: <T>(work: (tx: PgTransactionClient) => Promise<T>) => Promise<T>,
    serializable: Atomically,
    close: () => Promise<void>,
  ): StorageAdapter => {
    const atomically: Atomically = (work) => begin((tx) => work(tx));
    const core = new PgCore(client, cache, atomically, serializable, ready, options.queryBudgetMs ?? 5000);
    const transaction = async <T>(work: (tx: StorageAdapter) => Promise<T>): Promise<T> => {
      try {
        return await begin((tx) => work(view(tx, (inner) => tx.savepoint(inner), (inner) => tx.savepoint(inner), async () => {})));
      } catch (error) {
        // Schema rows recorded inside the rolled-back work are gone: forget what was cached.
        cache.clear();
        throw error;
      }
    };
    return { ...adapterShell({ name, capabilities: CAPABILITIES, operations: core, transaction, close }), forgetSchema: (ref) => cache.forgetTable(ref) };
  };

  /** SERIALIZABLE on the pool, run again (up to 20 times) when PostgreSQL reports a serialization failure. */
  const serializable: Atomically = async (work) => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await pgTransaction(sql, 'isolation level serializable', (tx) => work(tx));
      } catch (error) {
        if (attempt >= 20 || !isRetryable(error)) throw error;
      }
    }
  };

  return view(
    sql,
    (work) => pgTransaction(sql, '', work),
    serializable,
    async () => {
      cache.clear();
      if (options.closeClient) await sql.end({ timeout: 5 });
    },
  );
}
