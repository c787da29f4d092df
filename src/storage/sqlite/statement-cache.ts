import type { SqliteDatabase, SqliteStatement } from './database-shape.js';

/**
 * Prepared statements by SQL text, oldest evicted beyond `max`. SQL texts are built from quoted
 * identifiers and placeholders only, so the number of distinct texts stays small.
 */
export class StatementCache {
  private readonly statements = new Map<string, SqliteStatement>();

  constructor(
    private readonly db: SqliteDatabase,
    private readonly max = 500,
  ) {}

  get(sql: string): SqliteStatement {
    const cached = this.statements.get(sql);
    if (cached) return cached;
    const statement = this.db.prepare(sql);
    if (this.statements.size >= this.max) {
      // Oldest first: a hot statement evicted here is simply prepared again on its next use.
      const oldest = this.statements.keys().next();
      if (!oldest.done) this.statements.delete(oldest.value);
    }
    this.statements.set(sql, statement);
    return statement;
  }

  clear(): void {
    this.statements.clear();
  }
}
