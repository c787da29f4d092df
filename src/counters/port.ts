import type { Awaitable } from '../storage/port.js';

/** One rate window: at most `limit` hits in any period of `windowMs` milliseconds (sliding). */
export interface RateWindow {
  /** Hits allowed per window: a positive integer. */
  readonly limit: number;
  /** Window length in milliseconds: a positive integer. */
  readonly windowMs: number;
}

/** Outcome of one `consume`. */
export type ConsumeResult =
  | { readonly allowed: true; readonly retryAfterMs: 0 }
  /** `retryAfterMs`: milliseconds until every window would allow one more hit (> 0). */
  | { readonly allowed: false; readonly retryAfterMs: number };

/**
 * Shared counters for rate limits. ONE atomic primitive: `consume` checks every window against the
 * hits recorded for `key` and, only when all of them allow one more, records the hit at `now` in the
 * same atomic step. Denied calls record nothing. Never implement it as a read followed by a write
 * outside a transaction: of 1,000 concurrent calls for a fresh key with a 1-hit window, exactly one
 * must be allowed.
 *
 * Semantics are a sliding log (see `decideSlidingWindows`): a hit at time `t` counts in a window of
 * `windowMs` while `now - t < windowMs`. `now` is epoch milliseconds from the caller's Clock; stores
 * never read the system clock. Stores: memory (`memoryCounterStore`), SQLite (`sqliteCounterStore`);
 * a Redis store is one Lua script over a sorted set (docs/sms.md).
 */
export interface CounterStore {
  consume(key: string, windows: readonly RateWindow[], now: number): Awaitable<ConsumeResult>;
  /** Forgets every hit of `key` (tests, an operator unblocking a number). */
  reset(key: string): Awaitable<void>;
  close?(): Awaitable<void>;
}
