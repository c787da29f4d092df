import { formatDay } from '../../core/time.js';
import type { Value } from '../../core/values.js';
import { valuesEqual } from '../../core/values.js';
import { geoDistanceRadians } from '../geo.js';
import { compileSafeRegex } from '../regex/safe-regex.js';

/** The part of a better-sqlite3 `Database` this module calls. */
export interface SqliteFunctionHost {
  function(name: string, options: object, fn: (...args: never[]) => unknown): unknown;
}

function parseJson(text: unknown): Value | undefined {
  if (typeof text !== 'string') return undefined;
  try {
    return JSON.parse(text) as Value;
  } catch {
    return undefined;
  }
}

/**
 * Installs the functions the SQLite dialect's SQL calls, each running exactly the code the memory
 * evaluator runs, so both adapters agree:
 * - `svc_regex(pattern, flags, text)`: 1 when the safe regex matches `text` (a string), else 0;
 * - `svc_geo_distance(lat1, lng1, lat2, lng2)`: great-circle distance in radians, NULL on NULL;
 * - `svc_day(epochMs, timeZone)`: `YYYY-MM-DD` of the instant in the zone, NULL on NULL;
 * - `svc_json_equal(a, b)`: 1 when two tagged JSON texts are equal values (query equality).
 * The SQLite adapter calls this once when it opens a database.
 */
export function registerSqliteFunctions(db: SqliteFunctionHost): void {
  const deterministic = { deterministic: true };
  db.function('svc_regex', deterministic, ((pattern: unknown, flags: unknown, text: unknown) => {
    if (typeof text !== 'string' || typeof pattern !== 'string') return 0;
    return compileSafeRegex(pattern, typeof flags === 'string' ? flags : '').test(text) ? 1 : 0;
  }) as (...args: never[]) => unknown);
  db.function('svc_geo_distance', deterministic, ((lat1: unknown, lng1: unknown, lat2: unknown, lng2: unknown) => {
    if (typeof lat1 !== 'number' || typeof lng1 !== 'number' || typeof lat2 !== 'number' || typeof lng2 !== 'number') return null;
    return geoDistanceRadians(lat1, lng1, lat2, lng2);
  }) as (...args: never[]) => unknown);
  db.function('svc_day', deterministic, ((ms: unknown, timeZone: unknown) => {
    if (typeof ms !== 'number' && typeof ms !== 'bigint') return null;
    return formatDay(Number(ms), typeof timeZone === 'string' ? timeZone : 'UTC');
  }) as (...args: never[]) => unknown);
  let lastText: string | undefined;
  let lastValue: Value | undefined;
  db.function('svc_json_equal', deterministic, ((a: unknown, b: unknown) => {
    if (typeof b !== 'string') return 0;
    if (b !== lastText) (lastText = b), (lastValue = parseJson(b));
    const left = parseJson(a);
    return left !== undefined && lastValue !== undefined && valuesEqual(left, lastValue) ? 1 : 0;
  }) as (...args: never[]) => unknown);
}
