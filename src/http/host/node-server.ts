/**
 * Helpers for the node:http server a host mounts the service in (docs/mounting.md, "Server limits"
 * and "Shutting down"): socket limits, request tracking, graceful shutdown, and signal handling.
 */
import type { Server } from 'node:http';

/**
 * Socket limits for a server facing clients. Node's defaults never close a socket that connects and
 * stays silent, so idle clients pile up until the process runs out of file descriptors and new
 * clients get ECONNRESET.
 */
export const SERVER_LIMITS = {
  /** A socket with no traffic at all for this long is closed (Node's default: never). */
  idleSocketMs: 30_000,
  /** The request head must arrive within this (Node's default: 60 s). */
  headersTimeoutMs: 10_000,
  /** The whole request, body included, must arrive within this (Node's default: 300 s). */
  requestTimeoutMs: 30_000,
  /** An idle keep-alive socket is closed after this. */
  keepAliveTimeoutMs: 5_000,
  /** Connections beyond this are refused at once, before the process runs out of descriptors. */
  maxConnections: 10_000,
} as const;

/** Applies {@link SERVER_LIMITS} to a node:http server (also Express's `app.listen()` result). */
export function applyServerLimits<S extends Server>(server: S): S {
  server.timeout = SERVER_LIMITS.idleSocketMs;
  server.headersTimeout = SERVER_LIMITS.headersTimeoutMs;
  server.requestTimeout = SERVER_LIMITS.requestTimeoutMs;
  server.keepAliveTimeout = SERVER_LIMITS.keepAliveTimeoutMs;
  server.maxConnections = SERVER_LIMITS.maxConnections;
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
