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
}

/** Runs one parameterised statement (`$1`, `$2`, ...); `prepare: true` makes it a named prepared statement. */
export interface PgQueryable {
  unsafe(query: string, parameters?: never[], options?: { prepare?: boolean }): PgPendingQuery;
}

/** A connection inside `begin`: statements run in the transaction; `savepoint` nests one. */
export interface PgTransactionClient extends PgQueryable {
  savepoint<T>(work: (tx: PgTransactionClient) => Promise<T>): Promise<T>;
}

/** The client: a pool that runs statements and transactions. */
export interface PgClient extends PgQueryable {
  begin<T>(work: (tx: PgTransactionClient) => Promise<T>): Promise<T>;
  /** `options` follows BEGIN: `'isolation level serializable'`. */
  begin<T>(options: string, work: (tx: PgTransactionClient) => Promise<T>): Promise<T>;
  end(options?: { timeout?: number }): Promise<void>;
}
