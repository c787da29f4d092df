import { describe, expect, it } from 'vitest';
import { memoryCounterStore } from '../../src/counters/memory-counter-store.js';

const windows = [{ limit: 1, windowMs: 60_000 }];

// Regression: the store swept every key at once every 1,000 allowed hits, so that call cost O(keys).
describe('memory counter store sweeping', () => {
  it('forgets expired keys a few per call, whatever the number of keys', () => {
    const store = memoryCounterStore({ sweepPerCall: 2 });
    for (let i = 0; i < 1000; i++) store.consume(`phone-${i}`, windows, 0);
    expect(store.size).toBe(1000);
    const later = 60_001;
    for (let i = 0; i < 600; i++) store.consume('busy', windows, later + i);
    expect(store.size).toBe(1);
  });

  it('never forgets a key whose hits are still inside a window', async () => {
    const store = memoryCounterStore({ sweepPerCall: 50 });
    expect((await store.consume('a', windows, 0)).allowed).toBe(true);
    for (let i = 0; i < 100; i++) await store.consume(`other-${i}`, windows, 30_000);
    expect((await store.consume('a', windows, 59_999)).allowed).toBe(false);
    expect((await store.consume('a', windows, 60_000)).allowed).toBe(true);
  });
});
