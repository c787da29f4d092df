import type { CompiledQuery } from '../../query/sql/fragment.js';
import { type AsyncSqlDriver, type DriverOp, runAsync } from '../sql/sql-program.js';
import type { PgQueryable, PgRows } from './pg-client.js';
import { retryingDdl } from './pg-errors.js';

/** Runs one compiled statement as a prepared statement. */
export function runQuery(client: PgQueryable, query: CompiledQuery): PromiseLike<PgRows> {
  return client.unsafe(query.sql, query.parameters as never[], { prepare: true });
}

/** Runs `work` in a transaction (or a savepoint of the open one) on the client. */
export type Atomically = <T>(work: (client: PgQueryable) => Promise<T>) => Promise<T>;

/** How a driver treats transactions and races. */
export interface PgDriverOptions {
  /** Opens a transaction (or a savepoint) for a `transaction` operation; absent: nested programs run in the open transaction. */
  readonly atomically?: Atomically;
  /** Retry schema statements that race another instance's (pg-errors.ts, D62): not inside a transaction, which the failure aborted. */
  readonly retryRaces: boolean;
}

/**
 * Runs the operations of SQL programs (src/storage/sql/sql-program.ts) on a postgres.js client:
 * statements with parameters prepared, DDL (no parameters) unprepared, array rows through `.values()`.
 */
export function pgSqlDriver(client: PgQueryable, options: PgDriverOptions): AsyncSqlDriver {
  const driver: AsyncSqlDriver = {
    async perform(op: DriverOp): Promise<unknown> {
      switch (op.op) {
        case 'transaction': {
          const { atomically } = options;
          return atomically ? atomically((tx) => runAsync(op.program, pgSqlDriver(tx, { retryRaces: false }))) : runAsync(op.program, driver);
        }
        case 'rows':
          return runQuery(client, op.query);
        case 'row':
          return (await runQuery(client, op.query))[0];
        case 'array':
          return (await client.unsafe(op.query.sql, op.query.parameters as never[], { prepare: true }).values())[0];
        case 'arrays':
          return client.unsafe(op.query.sql, op.query.parameters as never[], { prepare: true }).values();
        case 'write':
          return (await runQuery(client, op.query)).count ?? 0;
        case 'schema': {
          const query = op.query;
          const run = () => (query.parameters.length === 0 ? client.unsafe(query.sql) : runQuery(client, query));
          return options.retryRaces ? retryingDdl(run) : run();
        }
      }
    },
  };
  return driver;
}
