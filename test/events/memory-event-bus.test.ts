import type { RunnerTestSuite } from 'vitest';
import { describe, expect, it } from 'vitest';
import { memoryEventBus, memoryEventHub } from '../../src/events/memory-event-bus.js';
import { type EventBusConformanceOptions, runEventBusConformance } from '../../src/testing.js';

const hub = memoryEventHub();
runEventBusConformance('memory hub', () => hub.bus());

describe('memoryEventBus', () => {
  it('a lone bus delivers its own publications and nothing after close', async () => {
    const bus = memoryEventBus();
    const got: string[] = [];
    await bus.subscribe('c', (m) => got.push(m));
    await bus.publish('c', 'one');
    await Promise.resolve();
    expect(got).toEqual(['one']);
    await bus.close?.();
    await bus.publish('c', 'two');
    await Promise.resolve();
    expect(got).toEqual(['one']);
  });

  it('listened: whether any bus of the hub listens to a channel now', async () => {
    const shared = memoryEventHub();
    const [a, b] = [shared.bus(), shared.bus()];
    expect(a.listened?.('c')).toBe(false);
    const stop = await b.subscribe('c', () => {});
    const other = await a.subscribe('c', () => {});
    expect([a.listened?.('c'), b.listened?.('c'), a.listened?.('d')]).toEqual([true, true, false]);
    await stop();
    expect(a.listened?.('c')).toBe(true);
    await a.close?.();
    expect(b.listened?.('c')).toBe(false);
    await other();
    expect(memoryEventBus().listened?.('c')).toBe(false);
  });

  it('two lone buses do not share channels (one process each)', async () => {
    const [a, b] = [memoryEventBus(), memoryEventBus()];
    const got: string[] = [];
    await b.subscribe('c', (m) => got.push(m));
    await a.publish('c', 'x');
    await Promise.resolve();
    expect(got).toEqual([]);
  });
});

describe('EventBus suite opt-outs', () => {
  runEventBusConformance('memory hub, one opt-out', () => hub.bus(), {
    skip: { 'large messages (64 KiB of mixed UTF-8) and empty ones arrive intact': 'opt-out under test' },
  });

  it('an opt-out is registered as skipped with its reason; the other cases run', ({ task }) => {
    const suite = (task.suite as RunnerTestSuite).tasks.find((t) => t.name === 'EventBus contract: memory hub, one opt-out');
    if (!suite || suite.type !== 'suite') throw new Error('suite not registered');
    const cases = suite.tasks.map((t) => ({ name: t.name, mode: t.mode }));
    expect(cases.filter((t) => t.mode === 'skip')).toEqual([
      { name: 'large messages (64 KiB of mixed UTF-8) and empty ones arrive intact (skipped: opt-out under test)', mode: 'skip' },
    ]);
    expect(cases.filter((t) => t.mode === 'run')).toHaveLength(9);
  });

  it('opt-outs name real cases only (a typo does not type-check)', () => {
    // @ts-expect-error: 'close' is not an EventBus contract case name.
    const typo: EventBusConformanceOptions = { skip: { close: 'misspelt' } };
    expect(typo.skip).toBeDefined();
  });
});
