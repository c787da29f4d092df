import { randomBytes } from 'node:crypto';
import { configError } from '../core/errors.js';
import { type Logger, silentLogger } from '../core/logger.js';
import type { StoredRecord } from '../core/values.js';
import { type Json, decodeValue, encodeValue } from '../core/wire-values.js';
import type { WriteEvent, WriteObserver, WriteOpKind } from '../storage/write-events.js';
import type { EventBus } from './port.js';

/** A write event as received from the feed: which instance committed it, and whether that is this one. */
export interface FeedEvent extends WriteEvent {
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

/** Wire dates of the feed are UTC, so decoding gives back the stored instant exactly. */
const FEED_TIME_ZONE = 'UTC';
const OPS = new Set<WriteOpKind>(['create', 'update', 'delete']);

/**
 * The change feed's fan-out between instances: each committed write of this service is published on
 * the bus as JSON (values in the wire codec of core/wire-values, dates in UTC), on one channel per
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
      if (!include(event)) return;
      await bus.publish(prefix + event.app, encodeFeedEvent(event, instanceId));
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

/** The JSON of one write event on the bus (version 1). */
export function encodeFeedEvent(event: WriteEvent, instance: string): string {
  const wire: Record<string, Json> = { v: 1, instance, op: event.op, app: event.app, className: event.className, objectId: event.objectId };
  if (event.before) wire.before = encodeValue(event.before, FEED_TIME_ZONE);
  if (event.after) wire.after = encodeValue(event.after, FEED_TIME_ZONE);
  return JSON.stringify(wire);
}

/** Parses and checks a feed message; throws on anything but a version-1 event. */
export function decodeFeedEvent(message: string, ownInstance: string): FeedEvent {
  const wire = JSON.parse(message) as Record<string, Json>;
  const { v, instance, op, app, className, objectId } = wire;
  if (v !== 1 || typeof instance !== 'string' || !OPS.has(op as WriteOpKind)) throw new Error('not a version-1 write event');
  if (typeof app !== 'string' || typeof className !== 'string' || typeof objectId !== 'string') throw new Error('write event without app, className or objectId');
  const event: { -readonly [K in keyof FeedEvent]: FeedEvent[K] } = { instance, local: instance === ownInstance, op: op as WriteOpKind, app, className, objectId };
  if (wire.before !== undefined) event.before = record(wire.before, 'before');
  if (wire.after !== undefined) event.after = record(wire.after, 'after');
  return event;
}

function record(json: Json, key: string): StoredRecord {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) throw new Error(`${key} is not a record`);
  const value = decodeValue(json, key, FEED_TIME_ZONE) as StoredRecord;
  if (typeof value.objectId !== 'string') throw new Error(`${key} has no objectId`);
  return value;
}
