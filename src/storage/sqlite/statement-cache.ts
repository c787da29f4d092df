import type { SqliteDatabase, SqliteStatement } from './database-shape.js';

/**
 * Prepared statements by SQL text, least recently used evicted beyond `max`. SQL texts are built from
 * quoted identifiers and placeholders only, so the number of distinct texts stays small.
 */
export class StatementCache {
  private readonly statements = new Map<string, SqliteStatement>();

  constructor(
    private readonly db: SqliteDatabase,
    private readonly max = 500,
  ) {}

  get(sql: string): SqliteStatement {
    let statement = this.statements.get(sql);
    if (statement) {
      this.statements.delete(sql);
    } else {
      statement = this.db.prepare(sql);
      if (this.statements.size >= this.max) {
        const oldest = this.statements.keys().next();
        if (!oldest.done) this.statements.delete(oldest.value);
      }
    }
    this.statements.set(sql, statement);
    return statement;
  }

  clear(): void {
    this.statements.clear();
  }
}
