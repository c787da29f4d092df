/**
 * Socket limits every example server sets (docs/mounting.md, "Server limits"). Node's defaults never
 * close a socket that connects and stays silent, so idle clients pile up until the process runs out
 * of file descriptors and new clients get ECONNRESET.
 */
import type { Server } from 'node:http';

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
export function applyServerLimits(server: Server): Server {
  server.timeout = SERVER_LIMITS.idleSocketMs;
  server.headersTimeout = SERVER_LIMITS.headersTimeoutMs;
  server.requestTimeout = SERVER_LIMITS.requestTimeoutMs;
  server.keepAliveTimeout = SERVER_LIMITS.keepAliveTimeoutMs;
  server.maxConnections = SERVER_LIMITS.maxConnections;
  return server;
}
