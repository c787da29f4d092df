import type { BusListener, EventBus } from './port.js';

/** Buses of one process sharing their channels: each bus is one "instance", closed on its own. */
export interface MemoryEventHub {
  /** A new bus on this hub. Its `close()` drops its own subscriptions only. */
  bus(): EventBus;
}

/**
 * Channels shared by several in-process buses: several services in one process (tests, simulations
 * of N instances) each get their own bus and receive every bus's publications, as on Redis.
 *
 * @example const hub = memoryEventHub(); const a = hub.bus(); const b = hub.bus();
 */
export function memoryEventHub(): MemoryEventHub {
  const channels = new Map<string, Set<BusListener>>();
  const publish = (channel: string, message: string): void => {
    const listeners = channels.get(channel);
    if (!listeners) return;
    for (const listener of [...listeners]) {
      queueMicrotask(() => {
        // A listener unsubscribed after publish but before delivery gets nothing, as on a network bus.
        if (!listeners.has(listener)) return;
        try {
          listener(message);
        } catch {
          // Isolated by contract: one listener's failure never stops the others.
        }
      });
    }
  };
  const remove = (channel: string, entry: BusListener): void => {
    const listeners = channels.get(channel);
    if (!listeners) return;
    listeners.delete(entry);
    if (listeners.size === 0) channels.delete(channel);
  };
  return {
    bus() {
      const own = new Map<BusListener, string>();
      let closed = false;
      return {
        publish(channel, message) {
          if (!closed) publish(channel, message);
        },
        listened(channel) {
          return channels.has(channel);
        },
        subscribe(channel, listener) {
          if (closed) return () => {};
          // A wrapper per subscription, so one function subscribed twice is delivered twice.
          const entry: BusListener = (message) => listener(message);
          let listeners = channels.get(channel);
          if (!listeners) channels.set(channel, (listeners = new Set()));
          listeners.add(entry);
          own.set(entry, channel);
          return () => {
            own.delete(entry);
            remove(channel, entry);
          };
        },
        close() {
          closed = true;
          for (const [entry, channel] of own) remove(channel, entry);
          own.clear();
        },
      };
    },
  };
}

/** An in-process EventBus: one instance, or tests. Delivery is asynchronous (a microtask after publish), like a networked bus. */
export function memoryEventBus(): EventBus {
  return memoryEventHub().bus();
}
