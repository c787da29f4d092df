import { svcError } from '../../core/errors.js';
import type { PgPendingQuery } from './pg-client.js';
import { sqlState } from './pg-errors.js';

/**
 * Awaits a read statement for at most `budgetMs`: past it the statement is cancelled on the server
 * (the driver's `cancel()`, PostgreSQL's cancel request), and the read answers 11090 like a SQLite
 * or memory read over its budget. `answer` is what is awaited (the query itself, or its `.values()`).
 * Real elapsed time, not the injected Clock: it bounds a call into the database that no fake clock
 * can advance (as SQLite's deadline, read-guard.ts). The driver cancels once: a budget shorter than
 * the round trip in which it first describes a statement's parameters can meet the server before
 * the statement runs, and then stops nothing (budgets are seconds; tests use tens of milliseconds).
 * A client without `cancel` is not bounded here: `statement_timeout` on its connections bounds it.
 */
export async function withinBudget<T>(query: PgPendingQuery, answer: PromiseLike<T>, budgetMs: number): Promise<T> {
  if (!query.cancel) return answer;
  let overBudget = false;
  const timer = setTimeout(() => {
    overBudget = true;
    query.cancel?.();
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
