import { physicalIdent } from '../../query/sql/identifier.js';
import { sqliteDialect } from '../../query/sql/sqlite-dialect.js';

/**
 * Quotes a physical identifier for SQLite; anything outside `[A-Za-z0-9_$]` is refused
 * (src/query/sql/identifier.ts).
 */
export function quoteIdent(name: string): string {
  return physicalIdent(sqliteDialect, name);
}
