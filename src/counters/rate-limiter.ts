import type { Clock } from '../core/clock.js';
import type { ConsumeResult, CounterStore, RateWindow } from './port.js';
import { assertWindows } from './sliding-window.js';

/** A rate limiter bound to a store and a clock. */
export interface RateLimiter {
  /**
   * Records one hit for `key` at the clock's now when every window allows it (atomic in the store);
   * otherwise records nothing and says how many milliseconds to wait.
   */
  consume(key: string, windows: readonly RateWindow[]): Promise<ConsumeResult>;
}

/**
 * The rate-limit engine: sliding-log windows over a `CounterStore` and an injected `Clock`. Windows
 * are validated on every call (a bad window is a configuration mistake and throws a `[svcbase]` error).
 *
 * @example
 * const limiter = createRateLimiter({ store: memoryCounterStore(), clock });
 * const r = await limiter.consume('sms:app:13800138000', [{ limit: 1, windowMs: 60_000 }]);
 */
export function createRateLimiter(deps: { store: CounterStore; clock: Clock }): RateLimiter {
  return {
    async consume(key, windows) {
      assertWindows(windows);
      return deps.store.consume(key, windows, deps.clock.now());
    },
  };
}

/** Milliseconds per minute, hour and day: the units of the SMS windows. */
export const MINUTE_MS = 60_000;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;
