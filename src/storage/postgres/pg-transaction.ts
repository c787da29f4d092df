/** A statement runner as porsager `postgres` gives one (the pool, a reserved connection). */
export interface PgStatementRunner {
  unsafe(query: string, parameters?: never[], options?: { prepare?: boolean }): PromiseLike<unknown>;
}

/** A connection taken out of the pool for one caller (porsager `postgres` 3.4+: `sql.reserve()`). */
export interface ReservedPgConnection extends PgStatementRunner {
  release(): void;
}

/** The part of the client a transaction needs. */
export interface ReservingPgClient {
  reserve(): Promise<ReservedPgConnection>;
}

/**
 * Runs `work` in one transaction on a connection reserved for it: `BEGIN` (with `mode`, e.g.
 * `ISOLATION LEVEL SERIALIZABLE`), then `COMMIT`, or `ROLLBACK` when `work` throws; the connection goes
 * back to the pool either way.
 *
 * Why not `sql.begin`: postgres 3.4.x can write a transaction's `BEGIN` into a busy connection's
 * pipeline without reserving that connection (porsager/postgres#823, #1189), which fails the
 * transaction with UNSAFE_TRANSACTION under load (seen here with 1,000 concurrent writes over two
 * instances) and can leave the connection in the pool mid-transaction, where unrelated statements
 * would run inside it. A reserved connection is taken idle and carries nothing but this transaction.
 */
export async function reservedTransaction<C extends ReservedPgConnection, T>(
  sql: { reserve(): Promise<C> },
  mode: string,
  work: (connection: C) => Promise<T>,
): Promise<T> {
  const connection = await sql.reserve();
  try {
    await connection.unsafe(mode ? `BEGIN ${mode}` : 'BEGIN');
    let result: T;
    try {
      result = await work(connection);
    } catch (error) {
      // A broken connection cannot roll back; the server ends its transaction when the socket closes.
      await Promise.resolve(connection.unsafe('ROLLBACK')).catch(() => undefined);
      throw error;
    }
    await connection.unsafe('COMMIT');
    return result;
  } finally {
    connection.release();
  }
}
