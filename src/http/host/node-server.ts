/**
 * Helpers for the node:http server a host mounts the service in (docs/mounting.md, "Server limits"
 * and "Shutting down"): socket limits, request tracking, graceful shutdown, and signal handling.
 */
import type { Server } from 'node:http';
import type { Clock } from '../../core/clock.js';
import type { Ticker } from '../../core/ticker.js';
import { guardSockets } from './socket-guard.js';

/** Socket limits of a server facing clients, in ms (and connections). */
export interface ServerLimits {
  /** A socket with no traffic at all for this long is closed, also mid-request (Node's `server.timeout`). */
  idleSocketMs: number;
  /** A request head must arrive whole within this of the socket connecting (slowloris, silent sockets). */
  headersTimeoutMs: number;
  /** A request must arrive whole, body included, within this of its head (else 408). */
  requestTimeoutMs: number;
  /** A socket idle after a response is closed this long (plus Node's 1 s grace) after it. */
  keepAliveTimeoutMs: number;
  /**
   * Most open sockets. A new one beyond it first closes the socket that has waited longest for a
   * request; only when every socket is serving a request or upgraded is the new one refused.
   */
  maxConnections: number;
}

/**
 * Socket limits for a server facing clients. Node's defaults never close a socket that connects and
 * stays silent, so idle clients pile up until the process runs out of file descriptors and new
 * clients get ECONNRESET.
 */
export const SERVER_LIMITS: Readonly<ServerLimits> = {
  idleSocketMs: 30_000,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 10_000,
};

/** {@link SERVER_LIMITS} to override, and the clock and ticker of the socket sweep (tests pass fake ones). */
export interface ServerLimitOptions extends Partial<ServerLimits> {
  clock?: Clock;
  /** Runs the socket sweep every 250 ms (default `setInterval`, unref'd). */
  ticker?: Ticker;
}

const guarded = new WeakSet<Server>();

/**
 * Applies {@link SERVER_LIMITS} (or `options`) to a node:http server: Express's `app.listen()` result,
 * Fastify's `fastify.server` and @hono/node-server's `serve()` result are such servers. Node's own
 * header and request checks run only every 30 s, so the limits are also enforced per socket on the
 * injected clock, checked every 250 ms (`guardSockets`, src/http/host/socket-guard.ts), and
 * `maxConnections` closes the longest-idle socket before it refuses a new one. A TLS server gets
 * Node's settings only (terminate TLS in front of the server instead).
 *
 * @example applyServerLimits(http.createServer(toNodeListener(service))).listen(3000);
 */
export function applyServerLimits<S extends Server>(server: S, options: ServerLimitOptions = {}): S {
  const limits: ServerLimits = { ...SERVER_LIMITS };
  for (const key of Object.keys(SERVER_LIMITS) as Array<keyof ServerLimits>) {
    const value = options[key] ?? limits[key];
    if (!Number.isInteger(value) || value < 1) throw new Error(`[svcbase] [server limits] ${key} must be a positive integer, got ${String(value)}`);
    limits[key] = value;
  }
  if (guarded.has(server)) throw new Error('[svcbase] [server limits] applyServerLimits was already applied to this server');
  guarded.add(server);
  server.timeout = limits.idleSocketMs;
  // Node's own checks stay on as a backstop (they run every 30 s).
  server.headersTimeout = limits.headersTimeoutMs;
  server.requestTimeout = limits.requestTimeoutMs;
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  if ('addContext' in server) {
    server.maxConnections = limits.maxConnections;
    return server;
  }
  // Node's maxConnections would refuse the newcomer before the guard could close an idle socket for it.
  guardSockets(server, limits, options);
  return server;
}

export interface InFlight {
  /** Resolves once no request is in flight. */
  idle(): Promise<void>;
}

/** Counts the server's requests from arrival until their response is done or the client is gone. */
export function trackRequests(server: Server): InFlight {
  let running = 0;
  let waiters: Array<() => void> = [];
  server.on('request', (_req, res) => {
    running++;
    res.once('close', () => {
      if (--running > 0) return;
      for (const wake of waiters) wake();
      waiters = [];
    });
  });
  return { idle: () => (running === 0 ? Promise.resolve() : new Promise<void>((resolve) => waiters.push(resolve))) };
}

/**
 * Stops accepting connections and drops idle keep-alive sockets at once; waits for the requests in
 * flight (at most `graceMs`); then closes the service, which also ends its WebSockets (a socket
 * upgraded from HTTP would otherwise hold `server.close` open), and finally any socket left.
 */
export async function closeGracefully(server: Server, inFlight: InFlight, closeService: () => Promise<void>, graceMs = 10_000): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([inFlight.idle(), new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)))]);
  clearTimeout(timer);
  await closeService();
  server.closeAllConnections();
  await closed;
}

/** Runs `close` once on SIGINT or SIGTERM, then exits (1 when closing failed). */
export function closeOnSignals(close: () => Promise<void>): void {
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
