import { randomBytes } from 'node:crypto';
import { configError } from '../core/errors.js';
import { type Logger, silentLogger } from '../core/logger.js';
import type { WriteEvent, WriteObserver } from './write-event.js';
import { decodeWriteEvent, encodeWriteEvent } from './write-event-codec.js';
import type { EventBus } from './port.js';
import { merged } from '../core/copy.js';

/** A write event as received from the feed: which instance committed it, and whether that is this one. */
export interface FeedEvent extends Omit<WriteEvent, 'caller'> {
  /** The `instanceId` of the feed that published it. */
  readonly instance: string;
  /** True when this feed's own service committed the write (a bus delivers one's own publications too). */
  readonly local: boolean;
}

export interface WriteFeedOptions {
  bus: EventBus;
  /** This instance's id, unique per process (default: random). */
  instanceId?: string;
  /** Channel of an application: `prefix + applicationId` (default `writes:`). */
  channelPrefix?: string;
  /**
   * Which committed writes go on the bus. Default: every class but the system ones (names starting
   * with `_`: users with their password hashes, sessions with their tokens), which stay off the wire.
   */
  include?: (event: WriteEvent) => boolean;
  /** Where undecodable messages are reported (default: silent). */
  logger?: Logger;
}

/** The feed of one instance: an observer to register on the service, and subscriptions per application. */
export interface WriteFeed {
  readonly instanceId: string;
  /** Register with `service.onWrite(feed.observer)` (or `observers: [feed.observer]`); publishes each committed write. */
  readonly observer: WriteObserver;
  /** Receives every instance's writes of application `app` (this one's included, marked `local`), in commit order per instance. */
  subscribe(app: string, listener: (event: FeedEvent) => void): Promise<() => Promise<void>>;
}

/**
 * The change feed's fan-out between instances: each committed write of this service is published on
 * the bus in the one write-event encoding (events/write-event-codec.ts, as realtime's), on one channel per
 * application, with this instance's id; a subscriber gets every instance's writes of an application
 * and can tell its own from remote ones by `local`. Delivery is the bus's: at most once, ordered per
 * instance and application.
 *
 * @example
 * const feed = writeFeed({ bus: redisEventBus({ publisher: redis, subscriber: new Redis(url) }) });
 * service.onWrite(feed.observer);
 * await feed.subscribe('app', (event) => { if (!event.local) refreshCache(event); });
 */
export function writeFeed(options: WriteFeedOptions): WriteFeed {
  const { bus } = options;
  const instanceId = options.instanceId ?? randomBytes(9).toString('base64url');
  if (typeof instanceId !== 'string' || instanceId.length === 0) throw configError('write-feed', 'instanceId must be a non-empty string');
  const prefix = options.channelPrefix ?? 'writes:';
  const include = options.include ?? ((event: WriteEvent) => !event.className.startsWith('_'));
  const logger = options.logger ?? silentLogger;
  return {
    instanceId,
    async observer(event) {
      const channel = prefix + event.app;
      if (!include(event) || bus.listened?.(channel) === false) return;
      await bus.publish(channel, encodeFeedEvent(event, instanceId));
    },
    async subscribe(app, listener) {
      const unsubscribe = await bus.subscribe(prefix + app, (message) => {
        let event: FeedEvent;
        try {
          event = decodeFeedEvent(message, instanceId);
        } catch (error) {
          logger.warn('write feed: undecodable message dropped', { app, error: String(error) });
          return;
        }
        if (event.app === app) listener(event);
      });
      return async () => {
        await unsubscribe();
      };
    },
  };
}

/** The message of one write event on the feed: the one write-event encoding, with the publishing instance. */
export function encodeFeedEvent(event: WriteEvent, instance: string): string {
  return encodeWriteEvent(event, instance);
}

/** Reads a feed message; throws on anything but a write event that names its instance. */
export function decodeFeedEvent(message: string, ownInstance: string): FeedEvent {
  const event = decodeWriteEvent(message);
  if (!event || event.instance === undefined) throw new Error('not a write event of the feed');
  return merged(event, { instance: event.instance, local: event.instance === ownInstance });
}
