import type { BusListener, EventBus } from './port.js';

/** An in-process EventBus: one instance, or tests. Delivery is asynchronous (a microtask after publish), like a networked bus. */
export function memoryEventBus(): EventBus {
  const channels = new Map<string, Set<BusListener>>();
  return {
    publish(channel, message) {
      const listeners = channels.get(channel);
      if (!listeners) return;
      for (const listener of [...listeners]) {
        queueMicrotask(() => {
          try {
            listener(message);
          } catch {
            // Isolated by contract: one listener's failure never stops the others.
          }
        });
      }
    },
    subscribe(channel, listener) {
      // A wrapper per subscription, so one function subscribed twice is delivered twice.
      const entry: BusListener = (message) => listener(message);
      let listeners = channels.get(channel);
      if (!listeners) channels.set(channel, (listeners = new Set()));
      listeners.add(entry);
      return () => {
        listeners.delete(entry);
        if (listeners.size === 0) channels.delete(channel);
      };
    },
    close() {
      channels.clear();
    },
  };
}
