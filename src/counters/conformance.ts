import { describe, expect } from 'vitest';
import { type OptOuts, contractCase } from '../storage/conformance/opt-out.js';
import type { Awaitable } from '../storage/port.js';
import type { CounterStore, RateWindow } from './port.js';
import { DAY_MS, HOUR_MS, MINUTE_MS } from './rate-limiter.js';

/** The fixed instant the cases start at (epoch ms). */
export const CONTRACT_T0 = Date.UTC(2026, 0, 1);
/** The SMS windows of the seed: 1 per minute, 5 per hour, 10 per day. */
export const CONTRACT_SMS_WINDOWS: RateWindow[] = [
  { limit: 1, windowMs: MINUTE_MS },
  { limit: 5, windowMs: HOUR_MS },
  { limit: 10, windowMs: DAY_MS },
];
const T0 = CONTRACT_T0;
const SMS = CONTRACT_SMS_WINDOWS;

type CounterCase = (make: () => Awaitable<CounterStore>) => Promise<void>;

/** The CounterStore contract: sliding windows, retry-after, atomic `consume`, `reset`, sweeping. */
const COUNTER_CASES = {
  '1 per minute: denied 1 ms before the minute, allowed at the minute': async (make) => {
    const store = await make();
    const w = [{ limit: 1, windowMs: MINUTE_MS }];
    expect(await store.consume('k', w, T0)).toEqual({ allowed: true, retryAfterMs: 0 });
    expect(await store.consume('k', w, T0 + 1)).toEqual({ allowed: false, retryAfterMs: MINUTE_MS - 1 });
    expect(await store.consume('k', w, T0 + MINUTE_MS - 1)).toEqual({ allowed: false, retryAfterMs: 1 });
    expect(await store.consume('k', w, T0 + MINUTE_MS)).toEqual({ allowed: true, retryAfterMs: 0 });
  },
  '5 per hour (sliding): the 6th waits for the oldest hit to leave the hour': async (make) => {
    const store = await make();
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
  },
  '10 per day (sliding 24 h): denied until the first hit is 24 h old': async (make) => {
    const store = await make();
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
  },
  'retryAfter is the longest wait over all full windows': async (make) => {
    const store = await make();
    const w = [{ limit: 1, windowMs: 1000 }, { limit: 2, windowMs: 10_000 }];
    await store.consume('k', w, T0);
    await store.consume('k', w, T0 + 1000);
    expect(await store.consume('k', w, T0 + 1500)).toEqual({ allowed: false, retryAfterMs: 8500 });
  },
  'denied calls record nothing': async (make) => {
    const store = await make();
    const w = [{ limit: 2, windowMs: MINUTE_MS }];
    await store.consume('k', w, T0);
    await store.consume('k', w, T0 + 1);
    for (let i = 0; i < 20; i++) expect((await store.consume('k', w, T0 + 2 + i)).allowed).toBe(false);
    expect((await store.consume('k', w, T0 + MINUTE_MS)).allowed).toBe(true);
  },
  'keys are independent': async (make) => {
    const store = await make();
    expect((await store.consume('app1:13800138000', SMS, T0)).allowed).toBe(true);
    expect((await store.consume('app1:13800138001', SMS, T0)).allowed).toBe(true);
    expect((await store.consume('app2:13800138000', SMS, T0)).allowed).toBe(true);
    expect((await store.consume('app1:13800138000', SMS, T0)).allowed).toBe(false);
  },
  'reset forgets a key': async (make) => {
    const store = await make();
    await store.consume('k', SMS, T0);
    await store.reset('k');
    expect((await store.consume('k', SMS, T0)).allowed).toBe(true);
  },
  '1,000 concurrent consumes of one key: exactly one allowed': async (make) => {
    const store = await make();
    const results = await Promise.all(Array.from({ length: 1000 }, () => Promise.resolve().then(() => store.consume('hot', SMS, T0))));
    expect(results.filter((r) => r.allowed)).toHaveLength(1);
  },
  'old hits are swept without affecting live limits': async (make) => {
    const store = await make();
    for (let i = 0; i < 1500; i++) await store.consume(`k${i}`, [{ limit: 1, windowMs: 1000 }], T0 + i);
    expect((await store.consume('k1499', [{ limit: 1, windowMs: 1000 }], T0 + 1600)).allowed).toBe(false);
    for (let i = 0; i < 1000; i++) await store.consume(`j${i}`, [{ limit: 1, windowMs: 1000 }], T0 + 5000);
    expect((await store.consume('k0', [{ limit: 1, windowMs: 1000 }], T0 + 5000)).allowed).toBe(true);
  },
} satisfies Record<string, CounterCase>;

/** Names of the CounterStore contract cases (the keys of `CounterStoreConformanceOptions.skip`). */
export type CounterStoreCaseName = keyof typeof COUNTER_CASES;

export interface CounterStoreConformanceOptions {
  /** Cases this store opts out of, each with its own reason (shown in the report as skipped). */
  readonly skip?: OptOuts<CounterStoreCaseName>;
}

/**
 * Registers the CounterStore contract suite (a vitest `describe` named `CounterStore contract: <name>`)
 * for a store factory, called once per case. `now` is a fixed epoch ms passed to `consume`, so the
 * store must decide by it, not by its own clock. The suite does not close stores: dispose of what
 * `make` opened in your own `afterAll`. Give each store its own key space.
 *
 * @example runCounterStoreConformance('my-counters', () => myCounterStore({ prefix: `t${++n}:` }))
 */
export function runCounterStoreConformance(name: string, make: () => Awaitable<CounterStore>, options: CounterStoreConformanceOptions = {}): void {
  describe(`CounterStore contract: ${name}`, () => {
    for (const [caseName, run] of Object.entries(COUNTER_CASES) as Array<[CounterStoreCaseName, CounterCase]>) {
      contractCase(caseName, options.skip?.[caseName], () => run(make));
    }
  });
}
