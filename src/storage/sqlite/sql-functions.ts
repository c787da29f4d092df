import type { SqliteDatabase } from './database-shape.js';

const MAX_CACHED = 256;

/**
 * Registers the SQL functions the query compiler's SQLite output calls:
 * `svc_regex(pattern, flags, text)` is 1 when `text` (a string) matches the JavaScript regular
 * expression, else 0, the same test the in-memory evaluator runs.
 */
export function registerSqlFunctions(db: SqliteDatabase): void {
  const cache = new Map<string, RegExp>();
  db.function('svc_regex', { deterministic: true }, (pattern: unknown, flags: unknown, text: unknown) => {
    if (typeof text !== 'string' || typeof pattern !== 'string') return 0;
    const key = `${String(flags ?? '')}/${pattern}`;
    let regex = cache.get(key);
    if (!regex) {
      regex = new RegExp(pattern, typeof flags === 'string' ? flags : '');
      if (cache.size >= MAX_CACHED) cache.clear();
      cache.set(key, regex);
    }
    regex.lastIndex = 0;
    return regex.test(text) ? 1 : 0;
  });
}
