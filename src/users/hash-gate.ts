import { configError, retryError } from '../core/errors.js';
import type { PasswordHasher } from './password-hash.js';

/** How many password hashes run at once, and how many may wait (svcbase addition). */
export interface HashingLimits {
  /** Hashes computed at the same time (default 2; each scrypt hash holds 32 MiB and a libuv thread). */
  readonly concurrency: number;
  /** Hashes waiting for a slot (default 64); past it a request answers 11102 with Retry-After. */
  readonly queue: number;
}

export const DEFAULT_HASHING_LIMITS: HashingLimits = Object.freeze({ concurrency: 2, queue: 64 });

/**
 * Wraps a hasher so that at most `concurrency` hashes (sign-up, login, password change, the dummy
 * hash of unknown users) run at once, in arrival order; at most `queue` more wait, and any beyond
 * that are refused at once with 11102 (429, Retry-After 1) instead of piling up memory. Hashing
 * itself already runs on libuv's thread pool (async `crypto.scrypt`), never on the event loop.
 */
export function gatedHasher(inner: PasswordHasher, limits: HashingLimits = DEFAULT_HASHING_LIMITS): PasswordHasher {
  const { concurrency, queue } = limits;
  if (!Number.isSafeInteger(concurrency) || concurrency < 1) throw configError('users', `hashing.concurrency must be a positive integer, got ${concurrency}`);
  if (!Number.isSafeInteger(queue) || queue < 0) throw configError('users', `hashing.queue must be a non-negative integer, got ${queue}`);
  let running = 0;
  const waiting: Array<() => void> = [];
  const run = async <T>(work: () => Promise<T>): Promise<T> => {
    if (running >= concurrency) {
      if (waiting.length >= queue) throw retryError('passwordHashBusy', 1000);
      await new Promise<void>((resolve) => waiting.push(resolve));
    } else {
      running++;
    }
    try {
      return await work();
    } finally {
      // Hand the slot straight to the next waiter (running stays the same), or free it.
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  };
  return {
    hash: (password) => run(() => inner.hash(password)),
    verify: (password, stored) => run(() => inner.verify(password, stored)),
    verifyDummy: (password) => run(() => inner.verifyDummy(password)),
    needsRehash: (stored) => inner.needsRehash(stored),
  };
}
