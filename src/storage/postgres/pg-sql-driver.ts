import type { CompiledQuery } from '../../query/sql/fragment.js';
import type { AsyncSqlDriver, SqlOp } from '../sql/sql-program.js';
import type { PgQueryable, PgRows } from './pg-client.js';
import { retryingDdl } from './pg-errors.js';

/** Runs one compiled statement as a prepared statement. */
export function runQuery(client: PgQueryable, query: CompiledQuery): PromiseLike<PgRows> {
  return client.unsafe(query.sql, query.parameters as never[], { prepare: true });
}

/**
 * Runs the operations of SQL programs (src/storage/sql/sql-program.ts) on a postgres.js client:
 * statements with parameters prepared, DDL (no parameters) unprepared. Outside a transaction a
 * schema statement that races another instance's is retried (pg-errors.ts, D62); inside one
 * (`inTransaction`) it is not, as the failed statement has aborted the transaction.
 */
export function pgSqlDriver(client: PgQueryable, inTransaction = false): AsyncSqlDriver {
  return {
    perform(op: SqlOp): PromiseLike<unknown> {
      const query = op.query;
      if (op.op !== 'schema') return runQuery(client, query);
      const run = () => (query.parameters.length === 0 ? client.unsafe(query.sql) : runQuery(client, query));
      return inTransaction ? run() : retryingDdl(run);
    },
  };
}
