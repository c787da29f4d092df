import { svcError } from '../../core/errors.js';
import type { PgPendingQuery } from './pg-client.js';
import { sqlState } from './pg-errors.js';

/** How often a statement cancelled while being described is checked for its execution, ms (at most 500 times). */
const DESCRIBE_POLL_MS = 10;
const MAX_POLLS = 500;

/** What postgres.js keeps on a pending query that a budget needs beyond `cancel()` (its own fields). */
interface DriverQueryState {
  /** The driver's canceller, cleared by its first `cancel()`. */
  readonly canceller?: unknown;
  /** True while a new statement's describe round trip runs; cleared when Bind and Execute are sent. */
  readonly describeFirst?: unknown;
}

/**
 * Awaits a read statement for at most `budgetMs`: past it the statement is cancelled on the server
 * (the driver's `cancel()`, PostgreSQL's cancel request), and the read answers 11090 like a SQLite
 * or memory read over its budget. `answer` is what is awaited (the query itself, or its `.values()`).
 * Real elapsed time, not the injected Clock: it bounds a call into the database that no fake clock
 * can advance (as SQLite's deadline, read-guard.ts). A client without `cancel` is not bounded here:
 * `statement_timeout` on its connections bounds it.
 *
 * A cancel request stops whatever the backend runs when it arrives. One sent while postgres.js is
 * still describing a statement new to its connection meets an idle backend and stops nothing, and
 * postgres.js cancels only once; so when the budget ends during a describe, the driver's canceller
 * is kept and called once more as soon as the statement is sent for execution. Never more than
 * that: a cancel that arrives after the statement ended would stop the next one on the connection.
 */
export async function withinBudget<T>(query: PgPendingQuery, answer: PromiseLike<T>, budgetMs: number): Promise<T> {
  if (!query.cancel) return answer;
  const state = query as PgPendingQuery & DriverQueryState;
  let overBudget = false;
  let timer: ReturnType<typeof setTimeout>;
  const cancelWhenExecuting = (canceller: (query: PgPendingQuery) => unknown, polls: number) => {
    timer = setTimeout(() => {
      if (state.describeFirst !== true) canceller(query);
      else if (polls < MAX_POLLS) cancelWhenExecuting(canceller, polls + 1);
    }, DESCRIBE_POLL_MS);
  };
  timer = setTimeout(() => {
    overBudget = true;
    const canceller = state.canceller;
    const describing = state.describeFirst === true;
    query.cancel?.();
    if (describing && typeof canceller === 'function') cancelWhenExecuting(canceller as (query: PgPendingQuery) => unknown, 0);
  }, budgetMs);
  try {
    return await answer;
  } catch (error) {
    // 57014: query_canceled, the answer to the cancel request (or to statement_timeout, then not ours).
    throw overBudget && sqlState(error) === '57014' ? svcError('queryOverBudget', budgetMs) : error;
  } finally {
    clearTimeout(timer);
  }
}
