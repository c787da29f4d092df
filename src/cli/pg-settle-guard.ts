import type { PgClient, PgPendingQuery, PgQueryable } from '../storage/postgres/pg-client.js';

/** How long a statement at risk may take to settle before it is given up (ms). */
export const SETTLE_GRACE_MS = 1500;
/** How long after a connection closed new statements are still at risk (ms): the pool's reconnects. */
export const RECOVERY_WINDOW_MS = 10_000;

/** Timers the guard uses (the real ones by default; tests pass their own and move time themselves). */
export interface GuardTimers {
  now(): number;
  setTimer(run: () => void, ms: number): unknown;
  clearTimer(timer: unknown): void;
}

const REAL_TIMERS: GuardTimers = {
  now: () => performance.now(),
  setTimer: (run, ms) => setTimeout(run, ms),
  clearTimer: (timer) => clearTimeout(timer as ReturnType<typeof setTimeout>),
};

export interface SettleGuardOptions {
  readonly graceMs?: number;
  readonly windowMs?: number;
  readonly timers?: GuardTimers;
}

/** The guarded client, and the hook that goes into the driver's `onclose` option. */
export interface SettleGuard {
  readonly client: PgClient;
  connectionClosed(): void;
}

interface InFlight {
  readonly reject: (error: Error) => void;
  timer?: unknown;
}

/** Schema statements are never cut: an index built on a large table may rightly take minutes. */
const DDL = /^\s*(CREATE|ALTER|DROP)\b/i;

/**
 * Bounds the statements the `postgres` driver (3.4.9, porsager/postgres#1208, D153) can strand
 * around a closed connection (a backend terminated, a network cut): its `closed()` leaves a stale
 * write timer behind, so a short statement written on the reconnected connection may never be
 * flushed, and the request waiting on it would never answer. Statements are at risk when they were
 * in flight as a connection closed, or started within `windowMs` after one did; each such statement
 * (schema statements excepted) that has not settled `graceMs` after the close or its start is
 * rejected with the driver's own `CONNECTION_CLOSED`, which requests answer as 11230 (outcome
 * unknown: PostgreSQL may still run it, as with any cut connection). Statements outside that
 * window are never touched and carry no timer.
 */
export function pgSettleGuard(sql: PgClient, options: SettleGuardOptions = {}): SettleGuard {
  const graceMs = options.graceMs ?? SETTLE_GRACE_MS;
  const windowMs = options.windowMs ?? RECOVERY_WINDOW_MS;
  const timers = options.timers ?? REAL_TIMERS;
  const inFlight = new Set<InFlight>();
  let lastClose = Number.NEGATIVE_INFINITY;

  const arm = (entry: InFlight): void => {
    entry.timer ??= timers.setTimer(() => entry.reject(stranded()), graceMs);
  };
  const track = <T>(work: PromiseLike<T>, text: string | null): Promise<T> => {
    let entry!: InFlight;
    const abandoned = new Promise<never>((_, reject) => (entry = { reject }));
    const cuttable = text === null || !DDL.test(text);
    if (cuttable) inFlight.add(entry);
    if (cuttable && timers.now() - lastClose <= windowMs) arm(entry);
    return Promise.race([Promise.resolve(work), abandoned]).finally(() => {
      if (entry.timer !== undefined) timers.clearTimer(entry.timer);
      inFlight.delete(entry);
    });
  };
  // Laziness is kept: the driver runs a statement when it is awaited, and `.values()` only marks it.
  const guarded = (pending: PgPendingQuery, text: string): PgPendingQuery => ({
    then: (onFulfilled, onRejected) => track(pending, text).then(onFulfilled, onRejected),
    values: () => ({ then: (onFulfilled, onRejected) => track(pending.values(), text).then(onFulfilled, onRejected) }),
    ...(pending.cancel ? { cancel: () => pending.cancel?.() } : {}),
  });
  const unsafeOf =
    (target: PgQueryable): PgQueryable['unsafe'] =>
    (query, parameters, options) =>
      guarded(target.unsafe(query, parameters, options), query);
  const client: PgClient = {
    unsafe: unsafeOf(sql),
    async reserve() {
      const connection = await track(sql.reserve(), null);
      return { unsafe: unsafeOf(connection), release: () => connection.release() };
    },
    end: (options) => sql.end(options),
  };
  return {
    client,
    connectionClosed() {
      lastClose = timers.now();
      for (const entry of inFlight) arm(entry);
    },
  };
}

function stranded(): Error {
  return Object.assign(new Error('the connection closed around a statement that never settled (porsager/postgres#1208)'), { code: 'CONNECTION_CLOSED' });
}
