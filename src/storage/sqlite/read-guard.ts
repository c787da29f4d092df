import type { SqliteFunctionHost } from '../../query/sql/index.js';

const PASSED = 'svcbase: query deadline passed';

/** The deadline of the reads on one connection, checked by `svc_tick()` on every scanned row. */
export interface ReadDeadline {
  /** Reads from now on stop (throw) once `budgetMs` milliseconds have passed. */
  arm(budgetMs: number): void;
  disarm(): void;
}

/**
 * Registers `svc_tick()` on a connection: 1 while the armed deadline is ahead, an exception once it
 * has passed, which aborts the running statement. Real elapsed time (performance.now), not the
 * injected Clock: it measures a native call that no fake clock can advance.
 */
export function installDeadline(db: SqliteFunctionHost): ReadDeadline {
  let until = Number.POSITIVE_INFINITY;
  db.function('svc_tick', { deterministic: false }, (() => {
    if (performance.now() > until) throw new Error(PASSED);
    return 1;
  }) as (...args: never[]) => unknown);
  return {
    arm: (budgetMs) => void (until = performance.now() + Math.max(0, budgetMs)),
    disarm: () => void (until = Number.POSITIVE_INFINITY),
  };
}

/** Whether an error is the one `svc_tick()` throws past the deadline. */
export function isDeadlineError(error: unknown): boolean {
  return error instanceof Error && error.message === PASSED;
}

/**
 * Rewrites every table scan of compiled SQL (`FROM "<table>" AS <alias>`) to a subquery that calls
 * `svc_tick()` on each row: `FROM (SELECT * FROM "<table>" WHERE svc_tick()) AS <alias>`. SQLite
 * flattens the subquery, so indexes still apply, and a runaway scan reaches JavaScript on every row,
 * where the deadline (or a worker's termination) stops it. Identifiers in compiled SQL are always
 * quoted and values are always bound, so the pattern only ever meets table references.
 */
export function guardSql(sql: string): string {
  return sql.replace(/FROM ("(?:[^"]|"")+") AS ([A-Za-z_][A-Za-z0-9_]*)/g, 'FROM (SELECT * FROM $1 WHERE svc_tick()) AS $2');
}
