import { svcError } from '../../core/errors.js';

/** Records scanned between two looks at the clock. */
const CHECK_EVERY = 256;

/** The deadline of one read: its budget and the instant (performance.now) it ends. */
export interface ReadBudget {
  readonly budgetMs: number;
  readonly deadline: number;
}

/** Starts the clock of a read of `budgetMs` milliseconds. */
export function readBudget(budgetMs: number): ReadBudget {
  return { budgetMs, deadline: performance.now() + Math.max(0, budgetMs) };
}

/**
 * `records`, iterated under a read's deadline: every 256 records the scan looks at the time and,
 * past the deadline, throws SvcError 11090 (the SQLite adapter's code for a read over its budget).
 * Real elapsed time (performance.now), not the injected Clock: it bounds a synchronous loop that no
 * fake clock can advance.
 */
export function scanWithin<T>(records: Iterable<T>, { budgetMs, deadline }: ReadBudget): Iterable<T> {
  return {
    [Symbol.iterator]() {
      const inner = records[Symbol.iterator]();
      let scanned = 0;
      return {
        next() {
          if (++scanned % CHECK_EVERY === 0 && performance.now() > deadline) throw svcError('queryOverBudget', budgetMs);
          return inner.next();
        },
      };
    },
  };
}
