import type { SqlQueryDialect } from './dialect.js';
import { join, raw, sql, type Sql } from './fragment.js';

/**
 * A condition under construction: SQL, or a constant the compiler already knows (a column of the
 * wrong type never matches, an unknown column is always missing). Constants fold away before
 * rendering, so `{"score": "x"}` on a Number column compiles to a plain `0`.
 */
export type Cond = Sql | boolean;

/**
 * Terms one AND/OR chain holds before it is split into parenthesised groups. SQLite parses
 * `a OR b OR c ...` into a tree as deep as the chain and refuses trees deeper than 1000 (D10: a
 * 1,000-value `$in` on an Array column); groups of groups keep the depth logarithmic.
 */
const MAX_CHAIN = 64;

export function and(parts: readonly Cond[]): Cond {
  const kept: Sql[] = [];
  for (const p of parts) {
    if (p === false) return false;
    if (p !== true) kept.push(p);
  }
  if (kept.length === 0) return true;
  return kept.length === 1 ? kept[0]! : chain(kept, ' AND ');
}

export function or(parts: readonly Cond[]): Cond {
  const kept: Sql[] = [];
  for (const p of parts) {
    if (p === true) return true;
    if (p !== false) kept.push(p);
  }
  if (kept.length === 0) return false;
  return kept.length === 1 ? kept[0]! : chain(kept, ' OR ');
}

/** `(a OP b OP ...)`, as nested groups of at most MAX_CHAIN terms. */
function chain(terms: readonly Sql[], separator: string): Sql {
  if (terms.length <= MAX_CHAIN) return sql`(${join(terms, separator)})`;
  const size = Math.ceil(terms.length / MAX_CHAIN);
  const groups: Sql[] = [];
  for (let i = 0; i < terms.length; i += size) {
    const group = terms.slice(i, i + size);
    groups.push(group.length === 1 ? group[0]! : chain(group, separator));
  }
  return chain(groups, separator);
}

/** Negation; a NULL inner condition counts as false (so its negation is true). */
export function not(dialect: SqlQueryDialect, c: Cond): Cond {
  return typeof c === 'boolean' ? !c : dialect.not(c);
}

export function condSql(dialect: SqlQueryDialect, c: Cond): Sql {
  return typeof c === 'boolean' ? raw(c ? dialect.trueLiteral : dialect.falseLiteral) : c;
}
