import { configError } from '../../core/errors.js';

/** Physical identifiers are built from validated names plus `_` and `$` (layout.ts): nothing else passes. */
const PHYSICAL = /^[A-Za-z0-9_$]{1,200}$/;

/**
 * Quotes a physical identifier for SQLite. Every name reaching SQL was validated at the edge; this is
 * the second lock: anything outside `[A-Za-z0-9_$]` is a programming error and never reaches SQL.
 */
export function quoteIdent(name: string): string {
  const cached = quoted.get(name);
  if (cached !== undefined) return cached;
  if (!PHYSICAL.test(name)) throw configError('sqlite', `refusing identifier ${JSON.stringify(name)}`);
  const out = `"${name}"`;
  if (quoted.size > 10_000) quoted.clear();
  quoted.set(name, out);
  return out;
}

/** Validated names (only valid ones are cached). */
const quoted = new Map<string, string>();
