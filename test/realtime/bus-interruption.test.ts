import { describe, expect, it } from 'vitest';
import type { BusState, EventBus } from '../../src/events/port.js';
import { memoryEventBus } from '../../src/events/memory-event-bus.js';
import { type Refusal, connect, jsonClient, rtHeaders, startRealtimeServer, subscribe } from './harness.js';

/** A memory bus whose interruptions the test reports itself. */
function interruptibleBus(): EventBus & { report(state: BusState): void } {
  const bus = memoryEventBus();
  const listeners = new Set<(state: BusState) => void>();
  return {
    ...bus,
    onInterruption: (listener) => {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    report: (state) => listeners.forEach((listener) => listener(state)),
  };
}

describe('realtime while its bus is interrupted (issue 40)', () => {
  it('closes every socket with 1012 when the bus goes down, refuses new ones with 11230, and serves again once it is up', async () => {
    const bus = interruptibleBus();
    const server = await startRealtimeServer({ realtime: { bus } });
    try {
      const client = await jsonClient(server);
      await subscribe(client, { id: 1, action: 'updateTable', tableName: 'Item' });
      bus.report('down');
      expect(await client.closed).toEqual({ code: 1012, reason: 'event bus interrupted: reconnect and subscribe again' });
      const refused = (await connect(`${server.wsUrl}/1/realtime`, rtHeaders())) as Refusal;
      expect([refused.status, refused.body?.code]).toEqual([424, 11230]);
      bus.report('up');
      const again = await jsonClient(server);
      await subscribe(again, { id: 1, action: 'updateTable', tableName: 'Item' });
      await server.request('POST', '/1/classes/Item', { body: { n: 1 } });
      expect(await again.json()).toMatchObject({ op: 'event', action: 'updateTable', tableName: 'Item' });
    } finally {
      await server.close();
    }
  });
});
