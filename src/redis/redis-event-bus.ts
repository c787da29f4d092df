import { configError } from '../core/errors.js';
import { type BusListener, BusStateListeners, type EventBus } from '../events/port.js';

/** The ioredis method the bus publishes with (typed by shape). */
export interface RedisPublisherLike {
  publish(channel: string, message: string): Promise<number>;
}

/**
 * The ioredis methods and events of the subscriber connection (typed by shape). A connection in
 * subscriber mode can run nothing else, so it must be a client of its own, used by this bus only.
 */
export interface RedisSubscriberLike {
  /** ioredis's connection state; a SUBSCRIBE waits for `ready` while it is `connecting`, `connect` or `reconnecting`. */
  readonly status?: string;
  subscribe(...channels: string[]): Promise<unknown>;
  unsubscribe(...channels: string[]): Promise<unknown>;
  on(event: 'message', listener: (channel: string, message: string) => void): unknown;
  on(event: 'ready', listener: () => void): unknown;
  on(event: 'close', listener: () => void): unknown;
  off(event: 'message', listener: (channel: string, message: string) => void): unknown;
  off(event: 'ready', listener: () => void): unknown;
  off(event: 'close', listener: () => void): unknown;
}

export interface RedisEventBusOptions {
  /** Any ioredis client; it may be shared with the stores. The host owns it. */
  publisher: RedisPublisherLike;
  /** A DEDICATED ioredis client for this bus (subscriber mode). The host owns it; `close()` leaves it connected. */
  subscriber: RedisSubscriberLike;
  /** Prepended to every channel name (default `svc:bus:`). */
  prefix?: string;
}

/** ioredis states in which a SUBSCRIBE could be written before the connection's ready check. */
const HANDSHAKING = new Set(['connecting', 'connect', 'reconnecting']);

/**
 * EventBus on Redis pub/sub: `publish` is `PUBLISH prefix+channel`, each subscribed channel is one
 * `SUBSCRIBE` on the subscriber connection, shared by all of this bus's listeners on it. At most once:
 * a message published while the subscriber is disconnected is lost. After a reconnect (`ready`) the
 * bus subscribes its channels again, so delivery resumes even with ioredis's `autoResubscribe: false`.
 * Order per publisher and channel holds because one connection carries a publisher's commands in order.
 * `onInterruption` reports `down` when the subscriber connection closes and `up` once the channels are
 * subscribed again after it reconnects. A subscription made while the connection is being made waits
 * for `ready`: ioredis 5.8.2-5.x writes a SUBSCRIBE during its handshake at once, ahead of its ready
 * check, which then fails in subscriber mode and drops the connection (redis/ioredis#2037).
 *
 * @example
 * const bus = redisEventBus({ publisher: redis, subscriber: new Redis(process.env.REDIS_URL) });
 */
export function redisEventBus(options: RedisEventBusOptions): EventBus {
  const { publisher, subscriber } = options;
  const prefix = options.prefix ?? 'svc:bus:';
  if (typeof prefix !== 'string') throw configError('redis-bus', 'prefix must be a string');
  const channels = new Map<string, Set<BusListener>>();
  /** The SUBSCRIBE in flight (or done) per Redis channel, so a second listener waits for the first. */
  const active = new Map<string, Promise<unknown>>();
  let closed = false;
  const states = new BusStateListeners();
  /** Subscriptions waiting for the connection to be ready (see the note above). */
  let readyWaiters: Array<() => void> = [];
  const whenReady = (): Promise<void> | null =>
    HANDSHAKING.has(subscriber.status ?? 'ready') ? new Promise<void>((resolve) => readyWaiters.push(resolve)) : null;
  const wakeWaiters = () => {
    const waiters = readyWaiters;
    readyWaiters = [];
    for (const wake of waiters) wake();
  };

  const onMessage = (redisChannel: string, message: string) => {
    const listeners = channels.get(redisChannel);
    if (!listeners) return;
    for (const listener of [...listeners]) {
      try {
        listener(message);
      } catch {
        // Isolated by contract: one listener's failure never stops the others.
      }
    }
  };
  const onReady = () => {
    wakeWaiters();
    // After a reconnect: subscribe again (a no-op for channels ioredis already resubscribed).
    if (channels.size === 0) return states.report('up');
    subscriber.subscribe(...channels.keys()).then(() => states.report('up'), () => {});
  };
  const onClose = () => states.report('down');
  subscriber.on('message', onMessage);
  subscriber.on('ready', onReady);
  subscriber.on('close', onClose);

  return {
    async publish(channel, message) {
      await publisher.publish(prefix + channel, message);
    },
    async subscribe(channel, listener) {
      if (closed) throw configError('redis-bus', 'subscribe on a closed bus');
      const key = prefix + channel;
      const entry: BusListener = (message) => listener(message);
      let listeners = channels.get(key);
      if (!listeners) channels.set(key, (listeners = new Set()));
      listeners.add(entry);
      let subscribed = active.get(key);
      if (!subscribed) {
        const ready = whenReady();
        const send = () => (closed ? Promise.reject(configError('redis-bus', 'the bus closed before its subscriber connection was ready')) : subscriber.subscribe(key));
        active.set(key, (subscribed = ready ? ready.then(send) : send()));
      }
      try {
        await subscribed;
      } catch (error) {
        listeners.delete(entry);
        if (listeners.size === 0 && channels.get(key) === listeners) {
          channels.delete(key);
          active.delete(key);
        }
        throw error;
      }
      return async () => {
        if (!listeners.delete(entry) || listeners.size > 0 || channels.get(key) !== listeners) return;
        channels.delete(key);
        active.delete(key);
        if (!closed) await subscriber.unsubscribe(key);
      };
    },
    onInterruption: (listener) => states.add(listener),
    async close() {
      if (closed) return;
      closed = true;
      subscriber.off('message', onMessage);
      subscriber.off('ready', onReady);
      subscriber.off('close', onClose);
      wakeWaiters(); // held subscriptions fail: the bus is closed
      const keys = [...channels.keys()];
      channels.clear();
      active.clear();
      if (keys.length > 0) await subscriber.unsubscribe(...keys).catch(() => {});
    },
  };
}
