import { svcError } from '../core/errors.js';
import type { Application } from '../app/application.js';
import type { Clock } from '../core/clock.js';
import { KV_NO_EXPIRY, type KvStore } from '../kv/port.js';
import type { FileStore } from './file-store.js';
import { keyPrefix } from './file-names.js';

/**
 * Bytes stored per application, kept in the KvStore with its atomic `increment`, so parallel uploads
 * (on one instance or many sharing the store) can never pass the quota together: each reserves its
 * bytes before writing them and gives back what it did not use. The ledger starts from the store's
 * own `usage` the first time an application is seen.
 */
export interface QuotaLedger {
  /** Reserves `bytes` for `app` or throws 413/11141 (reserving nothing) when that passes `quota`. */
  reserve(app: Application, bytes: number, quota: number): Promise<void>;
  /** Gives bytes back (a failed upload, a delete). */
  release(app: Application, bytes: number): Promise<void>;
  /** Bytes currently counted for `app`. */
  used(app: Application): Promise<number>;
}

export function createQuotaLedger(kv: KvStore, store: FileStore, clock: Clock): QuotaLedger {
  const seeded = new Map<string, Promise<void>>();
  const keyOf = (app: Application) => `files:used:${app.applicationId}`;
  const seed = (app: Application) => {
    let pending = seeded.get(app.applicationId);
    if (!pending) {
      pending = (async () => {
        const usage = await store.usage(keyPrefix(app.namespace));
        await kv.putIfAbsent(keyOf(app), String(usage), KV_NO_EXPIRY, clock.now());
      })();
      pending.catch(() => seeded.delete(app.applicationId));
      seeded.set(app.applicationId, pending);
    }
    return pending;
  };
  return {
    async reserve(app, bytes, quota) {
      await seed(app);
      const total = await kv.increment(keyOf(app), bytes, KV_NO_EXPIRY, clock.now());
      if (total > quota) {
        await kv.increment(keyOf(app), -bytes, KV_NO_EXPIRY, clock.now());
        throw svcError('fileQuotaExceeded', quota);
      }
    },
    async release(app, bytes) {
      if (bytes === 0) return;
      await seed(app);
      await kv.increment(keyOf(app), -bytes, KV_NO_EXPIRY, clock.now());
    },
    async used(app) {
      await seed(app);
      return Number((await kv.get(keyOf(app), clock.now())) ?? 0);
    },
  };
}
