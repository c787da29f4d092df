import { type SvcError, retryError } from './errors.js';

/** Which store a failure came from, in the words the client reads (never a host name or address). */
export type UnreachableStore = 'database' | 'shared store';

/**
 * Error codes of a connection that is down, refused, timed out or was cut: Node's socket errors, the
 * `postgres` driver's own (`CONNECT_TIMEOUT`, `CONNECTION_*`) and PostgreSQL's SQLSTATEs for a backend
 * terminated or a server shutting down (57P0x) and for connection exceptions (08xxx).
 */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
const POSTGRES_CODES = new Set(['CONNECT_TIMEOUT', 'CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED', '57P01', '57P02', '57P03']);

/** ioredis's messages when it refuses a command instead of queueing it, or gave up waiting for an answer. */
const REDIS_MESSAGES = ["Stream isn't writeable", 'Connection is closed', 'Command timed out', 'Reached the max retries per request limit'];

function classify(error: unknown): UnreachableStore | null {
  if (!(error instanceof Error)) return null;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (POSTGRES_CODES.has(code) || /^08[0-9A-Z]{3}$/.test(code)) return 'database';
    // A socket error names no store; ioredis's connection errors reach requests as the messages below,
    // so a bare one comes from the database driver.
    if (SOCKET_CODES.has(code)) return 'database';
  }
  if (error.name === 'MaxRetriesPerRequestError' || REDIS_MESSAGES.some((m) => error.message.startsWith(m))) return 'shared store';
  return null;
}

/**
 * The store an unexpected error says is unreachable (following `cause` a few levels), or null for
 * any other failure. Requests turn it into 11230 instead of a 500 (docs/scaling.md, D150).
 */
export function unreachableStore(error: unknown): UnreachableStore | null {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    const store = classify(current);
    if (store) return store;
    current = (current as { cause?: unknown }).cause;
  }
  return null;
}

/** How long a client is told to wait before retrying a request a store refused (the reconnect backoff's ceiling). */
export const STORE_RETRY_AFTER_MS = 1000;

/** 11230 for `store`, with `Retry-After`. */
export function storeUnavailable(store: UnreachableStore): SvcError {
  return retryError('storeUnavailable', STORE_RETRY_AFTER_MS, store);
}
