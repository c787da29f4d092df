import type { Awaitable } from '../storage/port.js';

/** Called with each message published on a channel this listener subscribed to. */
export type BusListener = (message: string) => void;

/**
 * Fan-out between service instances (the write pipeline's change feed, realtime subscriptions).
 * Messages are strings (the sender encodes); delivery is at most once and in publish order per
 * publisher and channel. A subscriber also receives its own instance's publications, exactly as with
 * Redis pub/sub and PostgreSQL LISTEN/NOTIFY, so every instance handles events one way.
 *
 * Channel names are opaque to the bus; callers namespace them (`svc:<app>:writes`). A listener that
 * throws is isolated: the bus keeps delivering to the others.
 */
export interface EventBus {
  publish(channel: string, message: string): Awaitable<void>;
  /**
   * Starts delivering `channel`'s messages to `listener`; resolves once the subscription is active
   * (a message published after that is delivered). Returns the unsubscribe function.
   */
  subscribe(channel: string, listener: BusListener): Awaitable<() => Awaitable<void>>;
  /** Stops delivery to this bus's listeners and drops its subscriptions; clients the host passed in stay open. */
  close?(): Awaitable<void>;
  /**
   * Optional: tells `listener` when delivery stopped (`down`: messages published from now on may be
   * lost to this bus's listeners) and when every subscription is active again (`up`). A bus that
   * notices a gap only once it is over reports `down` and `up` together. Realtime closes its sockets
   * on `down`, so a subscriber learns of the gap instead of silently missing changes. Returns the
   * function that stops the reports.
   */
  onInterruption?(listener: (state: BusState) => void): () => void;
  /**
   * Optional: false when no listener anywhere would receive a message published on `channel` now, so
   * a publisher may skip encoding it. Only a bus that sees every listener can know (the in-process
   * `memoryEventHub`); a networked bus leaves this out, and publishers then always publish.
   */
  listened?(channel: string): boolean;
}

/** Whether an EventBus delivers (`up`) or may be losing messages (`down`). */
export type BusState = 'down' | 'up';

/** The listeners of a bus's interruptions, for bus implementations. */
export class BusStateListeners {
  private readonly listeners = new Set<(state: BusState) => void>();
  private state: BusState = 'up';

  add(listener: (state: BusState) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** Reports `state` if it is a change (`down` twice is one interruption). */
  report(state: BusState): void {
    if (state === this.state) return;
    this.state = state;
    for (const listener of [...this.listeners]) {
      try {
        listener(state);
      } catch {
        // Isolated, as message listeners are.
      }
    }
  }
}
