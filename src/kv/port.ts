import type { Awaitable } from '../storage/port.js';

/**
 * A small key-value store with expiry for short-lived secrets: SMS codes, captcha answers,
 * validate_tokens, signature nonces. Times are epoch milliseconds from the caller's Clock, so stores
 * never read the system clock. Expired entries behave as absent.
 *
 * Atomicity is the contract: `putIfAbsent` lets exactly one racer store a key, `take` lets exactly
 * one racer read-and-delete it (`DELETE ... RETURNING` in SQL, `GETDEL` in Redis).
 */
export interface KvStore {
  put(key: string, value: string, expiresAt: number): Awaitable<void>;
  /** Stores only when the key is absent or expired; returns whether it stored. */
  putIfAbsent(key: string, value: string, expiresAt: number, now: number): Awaitable<boolean>;
  get(key: string, now: number): Awaitable<string | null>;
  /** Deletes the key and returns its value; of concurrent callers exactly one gets it. */
  take(key: string, now: number): Awaitable<string | null>;
  delete(key: string): Awaitable<void>;
  /**
   * Atomically adds `by` (an integer, may be negative) to the integer stored at `key` and returns the
   * new value. An absent or expired key counts as 0 and is created with `expiresAt`; a live key keeps
   * its expiry (Redis `INCRBY` + `EXPIRE ... NX`). Of N concurrent increments by 1 on a fresh key, the
   * callers see exactly the values 1..N. Use `KV_NO_EXPIRY` for counters that never expire.
   *
   * @example const attempts = await kv.increment('att:42', 1, now + 300_000, now);
   */
  increment(key: string, by: number, expiresAt: number, now: number): Awaitable<number>;
  close?(): Awaitable<void>;
}

/** `expiresAt` of entries that never expire (sequences, quota counters): the largest safe integer. */
export const KV_NO_EXPIRY = Number.MAX_SAFE_INTEGER;
