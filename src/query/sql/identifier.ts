import { configError } from '../../core/errors.js';
import type { SqlQueryDialect } from './dialect.js';

/** Physical identifiers are built from validated names plus `_` and `$` (layout.ts): nothing else passes. */
const PHYSICAL = /^[A-Za-z0-9_$]+$/;

/** Quoted names per dialect (only valid ones are kept, so the cache cannot fill with hostile input). */
const quoted = new Map<SqlQueryDialect, Map<string, string>>();

/**
 * Quotes a physical identifier for a write or DDL statement. Every name reaching SQL was validated
 * at the edge; this is the second lock: anything outside `[A-Za-z0-9_$]` is a programming error and
 * never reaches SQL. A name longer than the engine keeps whole is refused too: PostgreSQL would
 * silently truncate it, and two long names could then meet as one table or index.
 */
export function physicalIdent(dialect: SqlQueryDialect, name: string): string {
  let names = quoted.get(dialect);
  if (!names) quoted.set(dialect, (names = new Map()));
  const cached = names.get(name);
  if (cached !== undefined) return cached;
  if (name.length > dialect.maxIdentifierLength || !PHYSICAL.test(name)) throw configError(dialect.name, `refusing identifier ${JSON.stringify(name)}`);
  if (names.size > 10_000) names.clear();
  const out = dialect.quoteIdent(name);
  names.set(name, out);
  return out;
}
