import type { AccessControl } from '../access/access-control.js';
import type { SessionResolver } from '../app/caller.js';
import type { EventBus } from '../events/port.js';
import type { Ticker } from '../core/ticker.js';

export { intervalTicker } from '../core/ticker.js';

/**
 * Runs `tick` every `ms` milliseconds until the returned function is called. The default uses
 * `setInterval` (unref'd); tests pass a manual one and move a FakeClock, so heartbeats need no sleeps.
 */
export type RealtimeTicker = Ticker;

/** Realtime table subscriptions (docs/realtime.md). Every field has a default. */
export interface RealtimeOptions {
  /**
   * Fan-out between instances: every instance publishes its committed writes here and delivers what
   * it receives to its own subscribers. Default: an in-process bus of this service only. A bus passed
   * here is not closed by `service.close()` (its owner closes it).
   */
  bus?: EventBus;
  /**
   * The access decisions of subscribes and deliveries (the records feature's `access`, which
   * `createService` passes): a connection subscribes, and receives a record, exactly when a REST
   * find of the same caller would (class-level permissions, ACLs, roles, protected fields).
   * Default: a new access control over the service's storage (its own role cache, every stored
   * table permission ignored), for a service without the records feature.
   */
  access?: AccessControl;
  /**
   * The session resolver REST uses (the users feature's, which `createService` passes): a connection
   * opened with a session token asks it once more when it starts listening, so a session ended while
   * it opened is not missed. Without it that second look is skipped.
   */
  sessions?: () => SessionResolver | undefined;
  /** Path of svcbase's JSON-over-WebSocket protocol, relative to the mount prefix (default `/1/realtime`). */
  path?: string;
  /**
   * Base path of the official SDK's socket.io 0.9 framing (default `/socket.io`: the handshake is
   * `GET <base>/1/?t=…`, the socket `<base>/1/websocket/<sid>`); `false` leaves it out.
   */
  socketIoPath?: string | false;
  /** Most subscriptions of one connection (default 100; 11161 past it). */
  maxSubscriptionsPerConnection?: number;
  /** Most open connections per application on this instance, both framings together (default 1000; 11162). */
  maxConnectionsPerApp?: number;
  /**
   * Most of an application's connections one client address may hold on this instance (default: a
   * tenth of `maxConnectionsPerApp`, at least 1, so 100; 429 / 11163 past it), so one client cannot take
   * every slot. IPv6 addresses count by their /64. The socket.io sockets not yet bound to an
   * application are shared the same way. Without a known client address the share is skipped (logged once).
   */
  maxConnectionsPerAddress?: number;
  /**
   * A connection that has not made its first subscription this many ms after opening is closed
   * (default 30 000; close code 1008). On the socket.io framing the first subscription is also what
   * names the application, so this bounds anonymous sockets that never say who they are.
   */
  subscribeTimeoutMs?: number;
  /** Largest client message in bytes (default 16 KiB; a larger one closes the socket with 1009). */
  maxMessageBytes?: number;
  /** Client messages accepted per connection and second (default 20; others get 11167 and are dropped). */
  maxMessagesPerSecond?: number;
  /**
   * Inbound bytes per second one client address (IPv6: its /64) may send to one application on this
   * instance, all its connections together (default 64 KiB; a burst of 4 s of it is allowed). Checked
   * before a frame is parsed; past it the frame is dropped unread with 11167. Each frame counts its
   * length plus 64. A connection refused 10 times within 10 s (for any of the frame limits) is closed
   * with 1008. Without a known client address only the application's budget applies.
   */
  maxInboundBytesPerAddress?: number;
  /** Inbound bytes per second of one application on this instance, all connections together (default 1 MiB; same rules). */
  maxInboundBytesPerApp?: number;
  /**
   * Client messages of one connection admitted but not yet handled (default 32). Past it, a frame is
   * dropped unread with 11167: a connection's waiting messages never grow without bound.
   */
  maxQueuedMessages?: number;
  /**
   * Bytes a connection may have queued but not yet sent (default 1 MiB). A send that finds more
   * queued cuts the connection (`terminate()`): a slow consumer never grows memory without bound.
   */
  maxBufferedBytes?: number;
  /**
   * Most total cost of one connection's where subscriptions (default 5000; 11166 past it). A where
   * costs 1 per condition plus 1 per value it lists (`$in`, `$nin`, `$all`) plus its regex pattern's
   * length and 10 (docs/realtime.md, "Where budgets and matching"): a 900-value `$in` with a regex costs about 920.
   */
  maxWhereCostPerConnection?: number;
  /** Most where subscriptions of one application on this instance, all connections together (default 10 000; 11166). */
  maxWhereSubscriptionsPerApp?: number;
  /** Most total cost of one application's distinct wheres on this instance; identical wheres share one and count once (default 200 000; 11166). */
  maxWhereCostPerApp?: number;
  /**
   * Matching runs in slices of at most this many ms of work per turn of the event loop, all
   * applications together; between two, other requests are served (default 5).
   */
  dispatchSliceMs?: number;
  /**
   * Bytes of one application's changes waiting to be matched on this instance, each counted as its bus
   * message plus 1 KiB (default 16 MiB). Past it, further changes are not delivered on this instance
   * until the backlog empties (logged: `realtime: matching fell behind`).
   */
  maxPendingChangeBytes?: number;
  /** Heartbeat interval in ms (default 25 000): a WebSocket ping, or `2:::` on the socket.io framing. */
  heartbeatMs?: number;
  /** A connection that sent nothing (not even a pong) for this many ms is cut (default 60 000). */
  idleTimeoutMs?: number;
  ticker?: RealtimeTicker;
}

export type RealtimeLimits = Required<Omit<RealtimeOptions, 'bus' | 'ticker' | 'socketIoPath' | 'access' | 'sessions'>> & { socketIoPath: string | false };

export const DEFAULT_REALTIME_LIMITS: RealtimeLimits = {
  path: '/1/realtime',
  socketIoPath: '/socket.io',
  maxSubscriptionsPerConnection: 100,
  maxConnectionsPerApp: 1000,
  maxConnectionsPerAddress: 100,
  maxMessageBytes: 16 * 1024,
  maxMessagesPerSecond: 20,
  maxInboundBytesPerAddress: 64 * 1024,
  maxInboundBytesPerApp: 1024 * 1024,
  maxQueuedMessages: 32,
  maxWhereCostPerConnection: 5000,
  maxWhereSubscriptionsPerApp: 10_000,
  maxWhereCostPerApp: 200_000,
  dispatchSliceMs: 5,
  maxPendingChangeBytes: 16 * 1024 * 1024,
  maxBufferedBytes: 1024 * 1024,
  heartbeatMs: 25_000,
  idleTimeoutMs: 60_000,
  subscribeTimeoutMs: 30_000,
};

/** The default per-address share: a tenth of the per-application limit, at least one connection. */
const ADDRESS_SHARE = 10;

/** The options with defaults filled in; bad numbers are configuration mistakes (plain errors). */
export function resolveRealtimeLimits(options: RealtimeOptions): RealtimeLimits {
  const limits: RealtimeLimits = { ...DEFAULT_REALTIME_LIMITS };
  for (const key of Object.keys(DEFAULT_REALTIME_LIMITS) as Array<keyof RealtimeLimits>) {
    const value = options[key];
    if (value !== undefined) (limits as unknown as Record<string, unknown>)[key] = value;
  }
  if (options.maxConnectionsPerAddress === undefined) limits.maxConnectionsPerAddress = Math.max(1, Math.floor(limits.maxConnectionsPerApp / ADDRESS_SHARE));
  for (const key of ['maxSubscriptionsPerConnection', 'maxConnectionsPerApp', 'maxConnectionsPerAddress', 'maxMessageBytes', 'maxMessagesPerSecond', 'maxInboundBytesPerAddress', 'maxInboundBytesPerApp', 'maxQueuedMessages', 'maxBufferedBytes', 'heartbeatMs', 'idleTimeoutMs', 'subscribeTimeoutMs'] as const) {
    const value = limits[key];
    if (!Number.isInteger(value) || value < 1) throw new Error(`[svcbase] [realtime] ${key} must be a positive integer, got ${String(value)}`);
  }
  for (const key of ['maxWhereCostPerConnection', 'maxWhereSubscriptionsPerApp', 'maxWhereCostPerApp', 'dispatchSliceMs', 'maxPendingChangeBytes'] as const) {
    const value = limits[key];
    if (!Number.isInteger(value) || value < 1) throw new Error(`[svcbase] [realtime] ${key} must be a positive integer, got ${String(value)}`);
  }
  for (const key of ['path', 'socketIoPath'] as const) {
    const value = limits[key];
    if (value !== false && (typeof value !== 'string' || !/^\/[A-Za-z0-9._~\/-]*$/.test(value))) {
      throw new Error(`[svcbase] [realtime] ${key} must be a path starting with '/', got ${String(value)}`);
    }
  }
  return limits;
}
