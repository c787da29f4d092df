import { describe, expect } from 'vitest';
import { type OptOuts, contractCase } from '../storage/conformance/opt-out.js';
import type { Awaitable } from '../storage/port.js';
import { KV_NO_EXPIRY, type KvStore } from './port.js';

const T0 = Date.UTC(2026, 0, 1);

type KvCase = (make: () => Awaitable<KvStore>) => Promise<void>;

/** The KvStore contract: expiry, the atomic `putIfAbsent`/`take`/`increment`, sweeping. */
const KV_CASES = {
  'get returns a live value and treats expiresAt <= now as absent': async (make) => {
    const kv = await make();
    await kv.put('a', 'one', T0 + 1000);
    expect(await kv.get('a', T0 + 999)).toBe('one');
    expect(await kv.get('a', T0 + 1000)).toBeNull();
    expect(await kv.get('missing', T0)).toBeNull();
  },
  'put overwrites value and expiry': async (make) => {
    const kv = await make();
    await kv.put('a', 'one', T0 + 1000);
    await kv.put('a', 'two', T0 + 5000);
    expect(await kv.get('a', T0 + 4000)).toBe('two');
  },
  'putIfAbsent stores only when absent or expired': async (make) => {
    const kv = await make();
    expect(await kv.putIfAbsent('k', 'first', T0 + 1000, T0)).toBe(true);
    expect(await kv.putIfAbsent('k', 'second', T0 + 2000, T0 + 500)).toBe(false);
    expect(await kv.get('k', T0 + 500)).toBe('first');
    expect(await kv.putIfAbsent('k', 'third', T0 + 3000, T0 + 1000)).toBe(true);
    expect(await kv.get('k', T0 + 2500)).toBe('third');
  },
  'putIfAbsent: of 200 concurrent callers exactly one stores': async (make) => {
    const kv = await make();
    const results = await Promise.all(Array.from({ length: 200 }, (_, i) => kv.putIfAbsent('race', String(i), T0 + 1000, T0)));
    expect(results.filter(Boolean)).toHaveLength(1);
  },
  'take returns the value once and never an expired one': async (make) => {
    const kv = await make();
    await kv.put('t', 'secret', T0 + 1000);
    expect(await kv.take('t', T0)).toBe('secret');
    expect(await kv.take('t', T0)).toBeNull();
    await kv.put('t', 'late', T0 + 1000);
    expect(await kv.take('t', T0 + 1000)).toBeNull();
  },
  'take: of 200 concurrent callers exactly one gets the value': async (make) => {
    const kv = await make();
    await kv.put('once', 'v', T0 + 1000);
    const results = await Promise.all(Array.from({ length: 200 }, () => kv.take('once', T0)));
    expect(results.filter((r) => r === 'v')).toHaveLength(1);
  },
  'delete removes a key': async (make) => {
    const kv = await make();
    await kv.put('d', 'v', T0 + 1000);
    await kv.delete('d');
    expect(await kv.get('d', T0)).toBeNull();
  },
  'increment starts at 0, adds signed integers and returns the new value': async (make) => {
    const kv = await make();
    expect(await kv.increment('n', 1, T0 + 1000, T0)).toBe(1);
    expect(await kv.increment('n', 5, T0 + 1000, T0)).toBe(6);
    expect(await kv.increment('n', -2, T0 + 1000, T0)).toBe(4);
    expect(await kv.increment('n', 0, T0 + 1000, T0)).toBe(4);
    expect(await kv.get('n', T0)).toBe('4');
  },
  'increment keeps the expiry of a live key and restarts an expired one': async (make) => {
    const kv = await make();
    await kv.increment('e', 1, T0 + 1000, T0);
    await kv.increment('e', 1, T0 + 9000, T0 + 500);
    expect(await kv.get('e', T0 + 999)).toBe('2');
    expect(await kv.get('e', T0 + 1000)).toBeNull();
    expect(await kv.increment('e', 1, T0 + 5000, T0 + 1000)).toBe(1);
    expect(await kv.get('e', T0 + 4999)).toBe('1');
  },
  'increment: 500 concurrent callers see exactly 1..500': async (make) => {
    const kv = await make();
    const values = await Promise.all(Array.from({ length: 500 }, () => kv.increment('c', 1, KV_NO_EXPIRY, T0)));
    expect([...values].sort((a, b) => a - b)).toEqual(Array.from({ length: 500 }, (_, i) => i + 1));
  },
  'increment refuses a non-integer amount': async (make) => {
    const kv = await make();
    expect(() => kv.increment('x', 1.5, T0 + 1000, T0)).toThrow(/integer/);
  },
  'many expired writes are swept without losing live keys': async (make) => {
    const kv = await make();
    for (let i = 0; i < 2100; i++) await kv.putIfAbsent(`s${i}`, 'v', T0 + 10, T0);
    await kv.putIfAbsent('keep', 'v', T0 + 100_000, T0 + 20);
    for (let i = 0; i < 1100; i++) await kv.putIfAbsent(`z${i}`, 'v', T0 + 100_000, T0 + 20);
    expect(await kv.get('keep', T0 + 50)).toBe('v');
    expect(await kv.get('s1', T0 + 50)).toBeNull();
  },
} satisfies Record<string, KvCase>;

/** Names of the KvStore contract cases (the keys of `KvStoreConformanceOptions.skip`). */
export type KvStoreCaseName = keyof typeof KV_CASES;

export interface KvStoreConformanceOptions {
  /** Cases this store opts out of, each with its own reason (shown in the report as skipped). */
  readonly skip?: OptOuts<KvStoreCaseName>;
}

/**
 * Registers the KvStore contract suite (a vitest `describe` named `KvStore contract: <name>`) for a
 * store factory, called once per case. Times are fixed epoch ms passed as `now`, so the store must
 * not read the system clock. The suite does not close stores: dispose of what `make` opened in your
 * own `afterAll`. Give each store its own key space (a fresh prefix or database).
 *
 * @example runKvStoreConformance('my-kv', () => myKvStore({ prefix: `t${++n}:` }))
 */
export function runKvStoreConformance(name: string, make: () => Awaitable<KvStore>, options: KvStoreConformanceOptions = {}): void {
  describe(`KvStore contract: ${name}`, () => {
    for (const [caseName, run] of Object.entries(KV_CASES) as Array<[KvStoreCaseName, KvCase]>) {
      contractCase(caseName, options.skip?.[caseName], () => run(make));
    }
  });
}
