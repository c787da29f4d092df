import type { CompiledQuery } from '../../query/sql/fragment.js';
import { type AsyncSqlDriver, type DriverOp, runAsync } from '../sql/sql-program.js';
import type { PgQueryable, PgRows } from './pg-client.js';
import { retryingDdl } from './pg-errors.js';
import { withinBudget } from './pg-read-budget.js';

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
  /** Cancels a read statement (`rows`, `row`, `array`, `arrays`) running longer than this (pg-read-budget.ts); absent: unbounded. */
  readonly readBudgetMs?: number;
}

/**
 * Runs the operations of SQL programs (src/storage/sql/sql-program.ts) on a postgres.js client:
 * statements with parameters prepared, DDL (no parameters) unprepared, array rows through `.values()`.
 */
export function pgSqlDriver(client: PgQueryable, options: PgDriverOptions): AsyncSqlDriver {
  const budgetMs = options.readBudgetMs;
  const read = (query: CompiledQuery, asArrays: boolean): PromiseLike<PgRows | ReadonlyArray<readonly unknown[]>> => {
    const pending = client.unsafe(query.sql, query.parameters as never[], { prepare: true });
    const answer: PromiseLike<PgRows | ReadonlyArray<readonly unknown[]>> = asArrays ? pending.values() : pending;
    return budgetMs === undefined ? answer : withinBudget(pending, answer, budgetMs);
  };
  const driver: AsyncSqlDriver = {
    async perform(op: DriverOp): Promise<unknown> {
      switch (op.op) {
        case 'transaction': {
          const { atomically } = options;
          return atomically ? atomically((tx) => runAsync(op.program, pgSqlDriver(tx, { retryRaces: false }))) : runAsync(op.program, driver);
        }
        case 'rows':
          return read(op.query, false);
        case 'row':
          return ((await read(op.query, false)) as PgRows)[0];
        case 'array':
          return ((await read(op.query, true)) as ReadonlyArray<readonly unknown[]>)[0];
        case 'arrays':
          return read(op.query, true);
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
