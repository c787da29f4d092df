import type { SqliteDatabase } from './database-shape.js';
import { type ReadDeadline, guardSql, installDeadline } from './read-guard.js';
import { StatementCache } from './statement-cache.js';

/**
 * One compiled read, as it travels to a reader worker: `arrays` is a find (rows as arrays of column
 * values, in `arrayLayout` order), `rows` a statistics query (rows as objects), `count` a count.
 */
export interface ReadRequest {
  readonly kind: 'arrays' | 'rows' | 'count';
  readonly sql: string;
  readonly parameters: readonly unknown[];
}

export type ReadResult = unknown[][] | Array<Record<string, unknown>> | number;

/**
 * Runs compiled reads on one connection with a deadline: every table scan calls `svc_tick()` per
 * row (see `guardSql`), which throws once the budget has passed. Used by the reader workers and,
 * where no worker can serve, by the adapter on its own connection.
 */
export class GuardedReader {
  private readonly statements: StatementCache;
  private readonly deadline: ReadDeadline;

  constructor(db: SqliteDatabase) {
    this.statements = new StatementCache(db, 200);
    this.deadline = installDeadline(db);
  }

  /** Throws the deadline error (`isDeadlineError`) past `budgetMs`. */
  run(request: ReadRequest, budgetMs: number): ReadResult {
    const statement = this.statements.get(guardSql(request.sql));
    this.deadline.arm(budgetMs);
    try {
      if (request.kind === 'count') {
        const row = statement.get(...request.parameters) as { n: number | bigint } | undefined;
        return Number(row?.n ?? 0);
      }
      if (request.kind === 'arrays' && statement.raw) return statement.raw(true).all(...request.parameters) as unknown[][];
      return statement.all(...request.parameters) as Array<Record<string, unknown>>;
    } finally {
      this.deadline.disarm();
    }
  }
}
