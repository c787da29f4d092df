import { describe, expect, it } from 'vitest';
import { KV_NO_EXPIRY, type KvStore } from '../../src/kv/port.js';

const T0 = Date.UTC(2026, 0, 1);

/** The KvStore contract, run against every store. */
export function kvStoreCases(name: string, make: () => KvStore): void {
  describe(`KvStore contract: ${name}`, () => {
    it('get returns a live value and treats expiresAt <= now as absent', async () => {
      const kv = make();
      await kv.put('a', 'one', T0 + 1000);
      expect(await kv.get('a', T0 + 999)).toBe('one');
      expect(await kv.get('a', T0 + 1000)).toBeNull();
      expect(await kv.get('missing', T0)).toBeNull();
    });

    it('put overwrites value and expiry', async () => {
      const kv = make();
      await kv.put('a', 'one', T0 + 1000);
      await kv.put('a', 'two', T0 + 5000);
      expect(await kv.get('a', T0 + 4000)).toBe('two');
    });

    it('putIfAbsent stores only when absent or expired', async () => {
      const kv = make();
      expect(await kv.putIfAbsent('k', 'first', T0 + 1000, T0)).toBe(true);
      expect(await kv.putIfAbsent('k', 'second', T0 + 2000, T0 + 500)).toBe(false);
      expect(await kv.get('k', T0 + 500)).toBe('first');
      expect(await kv.putIfAbsent('k', 'third', T0 + 3000, T0 + 1000)).toBe(true);
      expect(await kv.get('k', T0 + 2500)).toBe('third');
    });

    it('putIfAbsent: of 200 concurrent callers exactly one stores', async () => {
      const kv = make();
      const results = await Promise.all(Array.from({ length: 200 }, (_, i) => kv.putIfAbsent('race', String(i), T0 + 1000, T0)));
      expect(results.filter(Boolean)).toHaveLength(1);
    });

    it('take returns the value once and never an expired one', async () => {
      const kv = make();
      await kv.put('t', 'secret', T0 + 1000);
      expect(await kv.take('t', T0)).toBe('secret');
      expect(await kv.take('t', T0)).toBeNull();
      await kv.put('t', 'late', T0 + 1000);
      expect(await kv.take('t', T0 + 1000)).toBeNull();
    });

    it('take: of 200 concurrent callers exactly one gets the value', async () => {
      const kv = make();
      await kv.put('once', 'v', T0 + 1000);
      const results = await Promise.all(Array.from({ length: 200 }, () => kv.take('once', T0)));
      expect(results.filter((r) => r === 'v')).toHaveLength(1);
    });

    it('delete removes a key', async () => {
      const kv = make();
      await kv.put('d', 'v', T0 + 1000);
      await kv.delete('d');
      expect(await kv.get('d', T0)).toBeNull();
    });

    it('increment starts at 0, adds signed integers and returns the new value', async () => {
      const kv = make();
      expect(await kv.increment('n', 1, T0 + 1000, T0)).toBe(1);
      expect(await kv.increment('n', 5, T0 + 1000, T0)).toBe(6);
      expect(await kv.increment('n', -2, T0 + 1000, T0)).toBe(4);
      expect(await kv.increment('n', 0, T0 + 1000, T0)).toBe(4);
      expect(await kv.get('n', T0)).toBe('4');
    });

    it('increment keeps the expiry of a live key and restarts an expired one', async () => {
      const kv = make();
      await kv.increment('e', 1, T0 + 1000, T0);
      await kv.increment('e', 1, T0 + 9000, T0 + 500);
      expect(await kv.get('e', T0 + 999)).toBe('2');
      expect(await kv.get('e', T0 + 1000)).toBeNull();
      expect(await kv.increment('e', 1, T0 + 5000, T0 + 1000)).toBe(1);
      expect(await kv.get('e', T0 + 4999)).toBe('1');
    });

    it('increment: 500 concurrent callers see exactly 1..500', async () => {
      const kv = make();
      const values = await Promise.all(Array.from({ length: 500 }, () => kv.increment('c', 1, KV_NO_EXPIRY, T0)));
      expect([...values].sort((a, b) => a - b)).toEqual(Array.from({ length: 500 }, (_, i) => i + 1));
    });

    it('increment refuses a non-integer amount', async () => {
      const kv = make();
      expect(() => kv.increment('x', 1.5, T0 + 1000, T0)).toThrow(/integer/);
    });

    it('many expired writes are swept without losing live keys', async () => {
      const kv = make();
      for (let i = 0; i < 2100; i++) await kv.putIfAbsent(`s${i}`, 'v', T0 + 10, T0);
      await kv.putIfAbsent('keep', 'v', T0 + 100_000, T0 + 20);
      for (let i = 0; i < 1100; i++) await kv.putIfAbsent(`z${i}`, 'v', T0 + 100_000, T0 + 20);
      expect(await kv.get('keep', T0 + 50)).toBe('v');
      expect(await kv.get('s1', T0 + 50)).toBeNull();
    });
  });
}
