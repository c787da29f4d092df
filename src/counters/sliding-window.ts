import { configError } from '../core/errors.js';
import type { ConsumeResult, RateWindow } from './port.js';

/**
 * The rate-limit decision, pure: given the hit times of one key (epoch ms, ascending) and the windows,
 * may one more hit happen at `now`? A hit at `t` counts in a window while `now - t < windowMs`, so a
 * 1-per-minute window admits the next hit exactly 60 000 ms after the previous one.
 *
 * When denied, `retryAfterMs` is the wait until every full window has dropped enough hits: for a
 * window holding `count >= limit` hits, the `(count - limit + 1)`-th oldest must leave, at
 * `t + windowMs`. Every store (memory, SQLite, a Redis Lua script) implements exactly this.
 *
 * @example decideSlidingWindows([0], [{ limit: 1, windowMs: 60_000 }], 59_999) // denied, retry 1 ms
 */
export function decideSlidingWindows(hits: readonly number[], windows: readonly RateWindow[], now: number): ConsumeResult {
  let retryAfterMs = 0;
  for (const window of windows) {
    const from = now - window.windowMs;
    const first = firstAfter(hits, from);
    const count = hits.length - first;
    if (count >= window.limit) {
      const blocking = hits[first + count - window.limit]!;
      retryAfterMs = Math.max(retryAfterMs, blocking + window.windowMs - now);
    }
  }
  return retryAfterMs > 0 ? { allowed: false, retryAfterMs } : { allowed: true, retryAfterMs: 0 };
}

/** The longest window: hits older than `now - horizon` can be forgotten. */
export function windowsHorizon(windows: readonly RateWindow[]): number {
  let horizon = 0;
  for (const w of windows) horizon = Math.max(horizon, w.windowMs);
  return horizon;
}

/** Throws a `[svcbase]` error unless every window has a positive integer limit and length. */
export function assertWindows(windows: readonly RateWindow[], scope = 'counters'): void {
  if (windows.length === 0) throw configError(scope, 'a rate limit needs at least one window');
  for (const w of windows) {
    if (!Number.isSafeInteger(w.limit) || w.limit < 1) throw configError(scope, `window limit must be a positive integer, got ${w.limit}`);
    if (!Number.isSafeInteger(w.windowMs) || w.windowMs < 1) throw configError(scope, `windowMs must be a positive integer, got ${w.windowMs}`);
  }
}

/** Index of the first hit strictly after `from` (binary search over ascending times). */
function firstAfter(hits: readonly number[], from: number): number {
  let lo = 0;
  let hi = hits.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (hits[mid]! > from) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}
