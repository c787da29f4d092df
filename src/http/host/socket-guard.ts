import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { type Clock, systemClock } from '../../core/clock.js';
import { type Ticker, intervalTicker } from '../../core/ticker.js';

/** The bounds the guard enforces, in ms (and sockets). */
export interface SocketGuardLimits {
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly keepAliveTimeoutMs: number;
  readonly maxConnections: number;
}

export interface SocketGuardOptions {
  /** Default: the system clock. */
  readonly clock?: Clock;
  /** Runs the sweep every {@link SWEEP_MS} (default `setInterval`, unref'd); tests pass a manual one. */
  readonly ticker?: Ticker;
}

/** Node keeps an idle keep-alive socket open this long past `keepAliveTimeout` (so clients close first). */
const KEEP_ALIVE_GRACE_MS = 1000;
/**
 * How often the sweep runs, ms. A sweep closes every socket whose deadline has passed, so a socket
 * lives its bound plus at most one interval plus however late the sweep runs: a short interval
 * leaves most of the soak's 2 s of slack (docs/performance.md, "Soak") to a busy event loop.
 */
export const SWEEP_MS = 250;
/** What Node itself answers when a request's time is up. */
const REQUEST_TIMEOUT = 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n';

interface Followed {
  /** When the socket started waiting for a request head (connected, or its last response was done). */
  since: number;
  /** Waiting after a response (a kept-alive socket) rather than since connecting. */
  kept: boolean;
  /** Requests whose responses are not done, oldest first, with when their heads arrived. */
  readonly requests: Array<{ readonly req: IncomingMessage; readonly res: ServerResponse; readonly at: number }>;
}

/**
 * Follows every socket of a plain node:http server from connection to close, and closes it at its
 * bound on the injected clock (checked every {@link SWEEP_MS}), instead of Node's own header and request
 * checks, which run only every 30 s (a silent socket lived 10-40 s under a 10 s header timeout):
 * - waiting for a request head: `headersTimeoutMs` after connecting, `keepAliveTimeoutMs` + 1 s after
 *   the previous response;
 * - serving: the oldest request must have arrived whole (body included) `requestTimeoutMs` after its
 *   head, else 408 and the socket is closed; a slow handler is not cut here;
 * - handed over (a WebSocket upgrade, CONNECT): only counted, its owner bounds it.
 * At `maxConnections` a new socket first closes the socket that has waited longest for a request;
 * when none waits (all are serving or handed over) the new one is refused.
 * Returns the function that stops the sweep (also stopped when the server closes).
 */
export function guardSockets(server: Server, limits: SocketGuardLimits, options: SocketGuardOptions = {}): () => void {
  const clock = options.clock ?? systemClock;
  const counted = new Set<Socket>();
  /** Sockets waiting for a request head, longest waiting first (a Map keeps insertion order). */
  const waiting = new Map<Socket, Followed>();
  const serving = new Map<Socket, Followed>();

  const wait = (socket: Socket, state: Followed, kept: boolean) => {
    state.since = clock.now();
    state.kept = kept;
    serving.delete(socket);
    waiting.set(socket, state);
  };
  const unfollow = (socket: Socket) => {
    waiting.delete(socket);
    serving.delete(socket);
  };
  const close = (socket: Socket) => {
    unfollow(socket);
    counted.delete(socket);
    socket.destroy();
  };

  server.on('connection', (socket: Socket) => {
    counted.add(socket);
    wait(socket, { since: 0, kept: false, requests: [] }, false);
    socket.once('close', () => {
      unfollow(socket);
      counted.delete(socket);
    });
    // Over the cap: the longest-waiting socket makes room; that is the newcomer itself when no other waits.
    if (counted.size > limits.maxConnections) close(waiting.keys().next().value ?? socket);
  });

  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    const state = waiting.get(socket) ?? serving.get(socket);
    if (!state) return;
    const entry = { req, res, at: clock.now() };
    state.requests.push(entry);
    waiting.delete(socket);
    serving.set(socket, state);
    res.once('close', () => {
      const at = state.requests.indexOf(entry);
      if (at >= 0) state.requests.splice(at, 1);
      if (state.requests.length === 0 && serving.has(socket) && !socket.destroyed) wait(socket, state, true);
    });
  };
  const handOver = (_req: IncomingMessage, socket: Duplex) => unfollow(socket as Socket);
  server.on('request', onRequest);
  follow(server, 'checkContinue', onRequest);
  follow(server, 'checkExpectation', onRequest);
  follow(server, 'upgrade', handOver);
  follow(server, 'connect', handOver);

  const stop = (options.ticker ?? intervalTicker).every(SWEEP_MS, () => {
    const now = clock.now();
    for (const [socket, state] of waiting) {
      if (now - state.since >= (state.kept ? limits.keepAliveTimeoutMs + KEEP_ALIVE_GRACE_MS : limits.headersTimeoutMs)) close(socket);
    }
    for (const [socket, state] of serving) {
      const oldest = state.requests[0];
      if (!oldest || oldest.req.complete || now - oldest.at < limits.requestTimeoutMs) continue;
      if (!oldest.res.headersSent && socket.writable) socket.write(REQUEST_TIMEOUT);
      close(socket);
    }
  });
  server.once('close', stop);
  return stop;
}

/**
 * Listens to `event` only while the host does. Node acts differently once an 'upgrade', 'connect',
 * 'checkContinue' or 'checkExpectation' listener exists (it hands the socket over, or stops
 * answering 100-continue itself), so the guard's listener must never be the only one.
 */
function follow<A extends unknown[]>(server: Server, event: string, listener: (...args: A) => void): void {
  const others = () => server.listeners(event).some((l) => l !== listener);
  const attached = () => server.listeners(event).includes(listener);
  if (others()) server.prependListener(event, listener);
  server.on('newListener', (name: string | symbol, added: unknown) => {
    if (name === event && added !== listener && !attached()) server.prependListener(event, listener);
  });
  server.on('removeListener', (name: string | symbol, removed: unknown) => {
    if (name === event && removed !== listener && !others() && attached()) server.removeListener(event, listener);
  });
}
