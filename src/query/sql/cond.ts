import type { SqlDialect } from './dialect.js';
import { join, raw, sql, type Sql } from './fragment.js';

/**
 * A condition under construction: SQL, or a constant the compiler already knows (a column of the
 * wrong type never matches, an unknown column is always missing). Constants fold away before
 * rendering, so `{"score": "x"}` on a Number column compiles to a plain `0`.
 */
export type Cond = Sql | boolean;

export function and(parts: readonly Cond[]): Cond {
  const kept: Sql[] = [];
  for (const p of parts) {
    if (p === false) return false;
    if (p !== true) kept.push(p);
  }
  if (kept.length === 0) return true;
  return kept.length === 1 ? kept[0]! : sql`(${join(kept, ' AND ')})`;
}

export function or(parts: readonly Cond[]): Cond {
  const kept: Sql[] = [];
  for (const p of parts) {
    if (p === true) return true;
    if (p !== false) kept.push(p);
  }
  if (kept.length === 0) return false;
  return kept.length === 1 ? kept[0]! : sql`(${join(kept, ' OR ')})`;
}

/** Negation; a NULL inner condition counts as false (so its negation is true). */
export function not(dialect: SqlDialect, c: Cond): Cond {
  return typeof c === 'boolean' ? !c : dialect.not(c);
}

export function condSql(dialect: SqlDialect, c: Cond): Sql {
  return typeof c === 'boolean' ? raw(c ? dialect.trueLiteral : dialect.falseLiteral) : c;
}
