import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decideSlidingWindows, windowsHorizon } from '../../src/counters/sliding-window.js';
import type { RateWindow } from '../../src/counters/port.js';
import { createRateLimiter } from '../../src/counters/rate-limiter.js';
import { memoryCounterStore } from '../../src/counters/memory-counter-store.js';
import { FakeClock } from '../../src/core/clock.js';

/** The definition, by brute force: a hit at t counts while now - t < windowMs. */
function allowsAt(hits: readonly number[], windows: readonly RateWindow[], at: number): boolean {
  return windows.every((w) => hits.filter((t) => t <= at && at - t < w.windowMs).length < w.limit);
}

describe('decideSlidingWindows', () => {
  it('agrees with the definition, and retryAfter is the exact first moment allowed', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 200 }), { maxLength: 30 }),
        fc.array(fc.record({ limit: fc.integer({ min: 1, max: 6 }), windowMs: fc.integer({ min: 1, max: 120 }) }), { minLength: 1, maxLength: 3 }),
        fc.integer({ min: 0, max: 250 }),
        (raw, windows, now) => {
          const hits = raw.filter((t) => t <= now).sort((a, b) => a - b);
          const result = decideSlidingWindows(hits, windows, now);
          expect(result.allowed).toBe(allowsAt(hits, windows, now));
          if (!result.allowed) {
            expect(result.retryAfterMs).toBeGreaterThan(0);
            expect(allowsAt(hits, windows, now + result.retryAfterMs)).toBe(true);
            expect(allowsAt(hits, windows, now + result.retryAfterMs - 1)).toBe(false);
          }
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('horizon is the longest window', () => {
    expect(windowsHorizon([{ limit: 1, windowMs: 5 }, { limit: 1, windowMs: 50 }])).toBe(50);
  });
});

describe('createRateLimiter', () => {
  it('reads time from the injected clock', async () => {
    const clock = new FakeClock();
    const limiter = createRateLimiter({ store: memoryCounterStore(), clock });
    const w = [{ limit: 1, windowMs: 1000 }];
    expect((await limiter.consume('k', w)).allowed).toBe(true);
    clock.advance(999);
    expect(await limiter.consume('k', w)).toEqual({ allowed: false, retryAfterMs: 1 });
    clock.advance(1);
    expect((await limiter.consume('k', w)).allowed).toBe(true);
  });

  it('refuses invalid windows as configuration mistakes', async () => {
    const limiter = createRateLimiter({ store: memoryCounterStore(), clock: new FakeClock() });
    await expect(limiter.consume('k', [])).rejects.toThrow(/\[svcbase\] \[counters\]/);
    await expect(limiter.consume('k', [{ limit: 0, windowMs: 10 }])).rejects.toThrow(/limit/);
    await expect(limiter.consume('k', [{ limit: 1, windowMs: 0.5 }])).rejects.toThrow(/windowMs/);
  });
});
