/**
 * Graceful shutdown for the example servers (docs/mounting.md, "Shutting down"): stop accepting,
 * let requests in flight finish (up to a grace period), then close the service (its WebSockets and
 * stores), then whatever sockets are left.
 */
import type { Server } from 'node:http';

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
