import { describe, expect, it } from 'vitest';
import { memoryEventBus, memoryEventHub } from '../../src/events/memory-event-bus.js';
import { runEventBusConformance } from '../../src/testing.js';

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

  it('two lone buses do not share channels (one process each)', async () => {
    const [a, b] = [memoryEventBus(), memoryEventBus()];
    const got: string[] = [];
    await b.subscribe('c', (m) => got.push(m));
    await a.publish('c', 'x');
    await Promise.resolve();
    expect(got).toEqual([]);
  });
});
