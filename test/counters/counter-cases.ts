import { describe, expect, it } from 'vitest';
import type { CounterStore, RateWindow } from '../../src/counters/port.js';
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../../src/counters/rate-limiter.js';

export const T0 = Date.UTC(2026, 0, 1);
/** The SMS windows of the seed: 1 per minute, 5 per hour, 10 per day. */
export const SMS: RateWindow[] = [
  { limit: 1, windowMs: MINUTE_MS },
  { limit: 5, windowMs: HOUR_MS },
  { limit: 10, windowMs: DAY_MS },
];

/** The CounterStore contract, run against every store. */
export function counterStoreCases(name: string, make: () => CounterStore): void {
  describe(`CounterStore contract: ${name}`, () => {
    it('1 per minute: denied 1 ms before the minute, allowed at the minute', async () => {
      const store = make();
      const w = [{ limit: 1, windowMs: MINUTE_MS }];
      expect(await store.consume('k', w, T0)).toEqual({ allowed: true, retryAfterMs: 0 });
      expect(await store.consume('k', w, T0 + 1)).toEqual({ allowed: false, retryAfterMs: MINUTE_MS - 1 });
      expect(await store.consume('k', w, T0 + MINUTE_MS - 1)).toEqual({ allowed: false, retryAfterMs: 1 });
      expect(await store.consume('k', w, T0 + MINUTE_MS)).toEqual({ allowed: true, retryAfterMs: 0 });
    });

    it('5 per hour (sliding): the 6th waits for the oldest hit to leave the hour', async () => {
      const store = make();
      for (let i = 0; i < 5; i++) expect((await store.consume('k', SMS, T0 + i * MINUTE_MS)).allowed).toBe(true);
      const sixth = await store.consume('k', SMS, T0 + 5 * MINUTE_MS);
      expect(sixth).toEqual({ allowed: false, retryAfterMs: HOUR_MS - 5 * MINUTE_MS });
      expect(await store.consume('k', SMS, T0 + HOUR_MS - 1)).toEqual({ allowed: false, retryAfterMs: 1 });
      expect((await store.consume('k', SMS, T0 + HOUR_MS)).allowed).toBe(true);
      // The hour now holds hits at 1..4 min and 60 min: the next is due when the 1-minute hit leaves.
      expect(await store.consume('k', SMS, T0 + HOUR_MS + 30_000)).toEqual({ allowed: false, retryAfterMs: 30_000 });
      expect((await store.consume('k', SMS, T0 + HOUR_MS + MINUTE_MS)).allowed).toBe(true);
      // Hits at 2,3,4,60,61 min: 2 ms before the 2-minute hit leaves, one hour-window slot is missing.
      expect(await store.consume('k', SMS, T0 + HOUR_MS + 2 * MINUTE_MS - 2)).toEqual({ allowed: false, retryAfterMs: 2 });
    });

    it('10 per day (sliding 24 h): denied until the first hit is 24 h old', async () => {
      const store = make();
      const times = [0, 1, 2, 3, 4].flatMap((m) => [m * MINUTE_MS, HOUR_MS + m * MINUTE_MS]).sort((a, b) => a - b);
      for (const t of times) expect((await store.consume('k', SMS, T0 + t)).allowed).toBe(true);
      const now = T0 + 5 * HOUR_MS;
      expect(await store.consume('k', SMS, now)).toEqual({ allowed: false, retryAfterMs: T0 + DAY_MS - now });
      expect(await store.consume('k', SMS, T0 + DAY_MS - 1)).toEqual({ allowed: false, retryAfterMs: 1 });
      expect((await store.consume('k', SMS, T0 + DAY_MS)).allowed).toBe(true);
      // Per-minute still applies; then the day holds 10 again until the 1-minute hit leaves it.
      expect((await store.consume('k', SMS, T0 + DAY_MS + MINUTE_MS - 1)).allowed).toBe(false);
      expect(await store.consume('k', SMS, T0 + DAY_MS + MINUTE_MS - 1)).toEqual({ allowed: false, retryAfterMs: 1 });
      expect((await store.consume('k', SMS, T0 + DAY_MS + MINUTE_MS)).allowed).toBe(true);
    });

    it('retryAfter is the longest wait over all full windows', async () => {
      const store = make();
      const w = [{ limit: 1, windowMs: 1000 }, { limit: 2, windowMs: 10_000 }];
      await store.consume('k', w, T0);
      await store.consume('k', w, T0 + 1000);
      expect(await store.consume('k', w, T0 + 1500)).toEqual({ allowed: false, retryAfterMs: 8500 });
    });

    it('denied calls record nothing', async () => {
      const store = make();
      const w = [{ limit: 2, windowMs: MINUTE_MS }];
      await store.consume('k', w, T0);
      await store.consume('k', w, T0 + 1);
      for (let i = 0; i < 20; i++) expect((await store.consume('k', w, T0 + 2 + i)).allowed).toBe(false);
      expect((await store.consume('k', w, T0 + MINUTE_MS)).allowed).toBe(true);
    });

    it('keys are independent', async () => {
      const store = make();
      expect((await store.consume('app1:13800138000', SMS, T0)).allowed).toBe(true);
      expect((await store.consume('app1:13800138001', SMS, T0)).allowed).toBe(true);
      expect((await store.consume('app2:13800138000', SMS, T0)).allowed).toBe(true);
      expect((await store.consume('app1:13800138000', SMS, T0)).allowed).toBe(false);
    });

    it('reset forgets a key', async () => {
      const store = make();
      await store.consume('k', SMS, T0);
      await store.reset('k');
      expect((await store.consume('k', SMS, T0)).allowed).toBe(true);
    });

    it('1,000 concurrent consumes of one key: exactly one allowed', async () => {
      const store = make();
      const results = await Promise.all(Array.from({ length: 1000 }, () => Promise.resolve().then(() => store.consume('hot', SMS, T0))));
      expect(results.filter((r) => r.allowed)).toHaveLength(1);
    });

    it('old hits are swept without affecting live limits', async () => {
      const store = make();
      for (let i = 0; i < 1500; i++) await store.consume(`k${i}`, [{ limit: 1, windowMs: 1000 }], T0 + i);
      expect((await store.consume('k1499', [{ limit: 1, windowMs: 1000 }], T0 + 1600)).allowed).toBe(false);
      for (let i = 0; i < 1000; i++) await store.consume(`j${i}`, [{ limit: 1, windowMs: 1000 }], T0 + 5000);
      expect((await store.consume('k0', [{ limit: 1, windowMs: 1000 }], T0 + 5000)).allowed).toBe(true);
    });
  });
}
