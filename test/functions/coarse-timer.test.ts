import { afterEach, describe, expect, it, vi } from 'vitest';
import { coarseTimer } from '../../src/functions/function-runner.js';

/** The default timer of cloud functions: one interval for every running invocation, on fake timers. */
describe('coarseTimer', () => {
  afterEach(() => vi.useRealTimers());

  it('fires each callback within one tick after its deadline, never a cancelled one, and stops ticking when idle', () => {
    vi.useFakeTimers({ now: Date.UTC(2026, 0, 1) });
    const timer = coarseTimer(100);
    const fired: string[] = [];
    timer.setTimeout(() => fired.push('a'), 1000);
    const cancelB = timer.setTimeout(() => fired.push('b'), 1000);
    timer.setTimeout(() => fired.push('c'), 2500);
    cancelB();
    vi.advanceTimersByTime(999);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(101);
    expect(fired).toEqual(['a']);
    vi.advanceTimersByTime(1500);
    expect(fired).toEqual(['a', 'c']);
    expect(vi.getTimerCount()).toBe(0);
  });
});
