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
}
