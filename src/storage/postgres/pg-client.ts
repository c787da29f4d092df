import { reservedTransaction } from './pg-transaction.js';

/**
 * The shape of the PostgreSQL client the adapter takes: a porsager `postgres` (3.x) `Sql` instance, or
 * anything with the same methods. Described by shape so the library does not import the driver and
 * users choose its version (D61).
 */

/** Rows of one statement (postgres.js: an array of row objects with a `count` of affected rows). */
export interface PgRows extends ReadonlyArray<Record<string, unknown>> {
  readonly count?: number | null;
}

/** A statement on its way: awaited for object rows, or `.values()` for array rows. */
export interface PgPendingQuery extends PromiseLike<PgRows> {
  values(): PromiseLike<ReadonlyArray<readonly unknown[]>>;
  /** Asks the server to cancel the running statement (postgres.js `query.cancel()`); read budgets need it. */
  cancel?(): unknown;
}

/** Runs one parameterised statement (`$1`, `$2`, ...); `prepare: true` makes it a named prepared statement. */
export interface PgQueryable {
  unsafe(query: string, parameters?: never[], options?: { prepare?: boolean }): PgPendingQuery;
}

/** A connection inside `begin`: statements run in the transaction; `savepoint` nests one. */
export interface PgTransactionClient extends PgQueryable {
  savepoint<T>(work: (tx: PgTransactionClient) => Promise<T>): Promise<T>;
}

/** The client: a pool that runs statements, and reserves a connection for each transaction. */
export interface PgClient extends PgQueryable {
  /** A connection of the pool for one caller (`sql.reserve()`, postgres 3.4+); see pg-transaction.ts. */
  reserve(): Promise<PgQueryable & { release(): void }>;
  end(options?: { timeout?: number }): Promise<void>;
}

/**
 * A transaction on a reserved connection (`mode` follows BEGIN: `''` or `'isolation level
 * serializable'`), whose client nests savepoints.
 */
export function pgTransaction<T>(sql: PgClient, mode: string, work: (tx: PgTransactionClient) => Promise<T>): Promise<T> {
  return reservedTransaction(sql, mode, (connection) => work(savepointClient(connection)));
}

/** A transaction's connection with `savepoint`: each nested unit a uniquely named savepoint. */
function savepointClient(connection: PgQueryable): PgTransactionClient {
  let next = 0;
  const client: PgTransactionClient = {
    unsafe: (query, parameters, options) => connection.unsafe(query, parameters, options),
    async savepoint(work) {
      const name = `svc_sp_${++next}`;
      await connection.unsafe(`SAVEPOINT ${name}`);
      try {
        const result = await work(client);
        await connection.unsafe(`RELEASE SAVEPOINT ${name}`);
        return result;
      } catch (error) {
        await connection.unsafe(`ROLLBACK TO SAVEPOINT ${name}`);
        await connection.unsafe(`RELEASE SAVEPOINT ${name}`);
        throw error;
      }
    },
  };
  return client;
}
