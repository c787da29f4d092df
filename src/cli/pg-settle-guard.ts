import type { PgClient, PgPendingQuery, PgQueryable, PgRows } from '../storage/postgres/pg-client.js';

/** How long a statement in flight when a connection closed may still take before it is given up. */
export const SETTLE_GRACE_MS = 1500;

/**
 * Bounds the wait of statements caught by a closing connection. The `postgres` driver (3.4.9,
 * porsager/postgres#1208) can drop a statement it was about to write when its connection closes
 * under it (a backend terminated, a network cut): that statement never settles, and neither does
 * the request waiting on it. Each statement in flight when any connection of the pool closes gets
 * `graceMs` more to settle; past it, it is rejected with the driver's own `CONNECTION_CLOSED`, which
 * requests answer as 11230. A statement on a healthy connection that settles within the grace is not
 * touched; one that runs longer is answered 11230 while PostgreSQL may still finish it (its outcome
 * unknown to the client, as with any cut connection). `connectionClosed` goes in the driver's
 * `onclose` option.
 */
export interface SettleGuard {
  readonly client: PgClient;
  connectionClosed(): void;
}

interface InFlight {
  readonly reject: (error: Error) => void;
  timer?: ReturnType<typeof setTimeout>;
}

export function pgSettleGuard(sql: PgClient, graceMs = SETTLE_GRACE_MS): SettleGuard {
  const inFlight = new Set<InFlight>();
  const track = <T>(work: PromiseLike<T>): Promise<T> => {
    let entry!: InFlight;
    const abandoned = new Promise<never>((_, reject) => (entry = { reject }));
    inFlight.add(entry);
    return Promise.race([Promise.resolve(work), abandoned]).finally(() => {
      clearTimeout(entry.timer);
      inFlight.delete(entry);
    });
  };
  // Laziness is kept: the driver runs a statement when it is awaited, and `.values()` only marks it.
  const guarded = (pending: PgPendingQuery): PgPendingQuery => ({
    then: (onFulfilled, onRejected) => track<PgRows>(pending).then(onFulfilled, onRejected),
    values: () => ({ then: (onFulfilled, onRejected) => track(pending.values()).then(onFulfilled, onRejected) }),
  });
  const queryable = <Q extends PgQueryable>(target: Q): PgQueryable['unsafe'] => (query, parameters, options) => guarded(target.unsafe(query, parameters, options));
  const client: PgClient = {
    unsafe: queryable(sql),
    async reserve() {
      const connection = await track(sql.reserve());
      return { unsafe: queryable(connection), release: () => connection.release() };
    },
    end: (options) => sql.end(options),
  };
  return {
    client,
    connectionClosed() {
      for (const entry of inFlight) {
        entry.timer ??= setTimeout(() => entry.reject(Object.assign(new Error('the connection closed under a statement that never settled (porsager/postgres#1208)'), { code: 'CONNECTION_CLOSED' })), graceMs);
      }
    },
  };
}
