import type { RunnerTestSuite } from 'vitest';
import { describe, expect, it } from 'vitest';
import { memoryCounterStore } from '../../src/counters/memory-counter-store.js';
import { memoryKvStore } from '../../src/kv/memory-kv.js';
import { type KvStoreConformanceOptions, runCounterStoreConformance, runKvStoreConformance } from '../../src/testing.js';

/** Name and mode of every case the contract suite `name` registered beside the running test. */
function registered(parent: RunnerTestSuite | undefined, name: string): Array<{ name: string; mode: string }> {
  const suite = parent?.tasks.find((t) => t.name === name);
  if (!suite || suite.type !== 'suite') throw new Error(`no suite ${name}`);
  return suite.tasks.map((t) => ({ name: t.name, mode: t.mode }));
}

describe('published contract suites: opt-outs carry their own reason', () => {
  runKvStoreConformance('memory, one opt-out', () => memoryKvStore(), {
    skip: { 'take: of 200 concurrent callers exactly one gets the value': 'opt-out under test' },
  });
  runCounterStoreConformance('memory, two opt-outs', () => memoryCounterStore(), {
    skip: { 'keys are independent': 'first reason', 'reset forgets a key': 'second reason' },
  });

  it('a KvStore opt-out is registered as skipped with its reason; the other cases run', ({ task }) => {
    const kv = registered(task.suite, 'KvStore contract: memory, one opt-out');
    expect(kv.filter((t) => t.mode === 'skip')).toEqual([
      { name: 'take: of 200 concurrent callers exactly one gets the value (skipped: opt-out under test)', mode: 'skip' },
    ]);
    expect(kv.filter((t) => t.mode === 'run')).toHaveLength(11);
  });

  it('each CounterStore opt-out shows its own reason', ({ task }) => {
    const counters = registered(task.suite, 'CounterStore contract: memory, two opt-outs');
    expect(counters.filter((t) => t.mode === 'skip').map((t) => t.name).sort()).toEqual([
      'keys are independent (skipped: first reason)',
      'reset forgets a key (skipped: second reason)',
    ]);
    expect(counters.filter((t) => t.mode === 'run')).toHaveLength(7);
  });

  it('opt-outs name real cases only (a typo does not type-check)', () => {
    // @ts-expect-error: 'take once' is not a KvStore contract case.
    const typo: KvStoreConformanceOptions = { skip: { 'take once': 'misspelt' } };
    expect(typo.skip).toBeDefined();
  });
});
