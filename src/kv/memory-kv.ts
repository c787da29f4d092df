import { configError } from '../core/errors.js';
import type { KvStore } from './port.js';

interface Entry {
  value: string;
  expiresAt: number;
}

/**
 * KvStore in process memory. Single-threaded JavaScript makes every method atomic. Expired entries
 * are swept lazily, at most once per `sweepEvery` writes (a `put` sweeps with the latest `now` seen).
 */
export function memoryKvStore(options: { sweepEvery?: number } = {}): KvStore {
  const entries = new Map<string, Entry>();
  const sweepEvery = options.sweepEvery ?? 1000;
  let writes = 0;
  let lastNow = Number.NEGATIVE_INFINITY;
  const live = (key: string, now: number): Entry | undefined => {
    if (now > lastNow) lastNow = now;
    const e = entries.get(key);
    if (e && e.expiresAt <= now) {
      entries.delete(key);
      return undefined;
    }
    return e;
  };
  const noteWrite = (now: number) => {
    lastNow = Math.max(lastNow, now);
    if (++writes % sweepEvery !== 0) return;
    for (const [k, e] of entries) if (e.expiresAt <= now) entries.delete(k);
  };
  return {
    put(key, value, expiresAt) {
      entries.set(key, { value, expiresAt });
      noteWrite(lastNow);
    },
    putIfAbsent(key, value, expiresAt, now) {
      if (live(key, now)) return false;
      entries.set(key, { value, expiresAt });
      noteWrite(now);
      return true;
    },
    get(key, now) {
      return live(key, now)?.value ?? null;
    },
    take(key, now) {
      const e = live(key, now);
      if (!e) return null;
      entries.delete(key);
      return e.value;
    },
    delete(key) {
      entries.delete(key);
    },
    increment(key, by, expiresAt, now) {
      if (!Number.isSafeInteger(by)) throw configError('kv', `increment needs an integer, got ${by}`);
      const e = live(key, now);
      const current = e ? Number(e.value) : 0;
      if (!Number.isSafeInteger(current)) throw configError('kv', `key '${key}' does not hold an integer`);
      const next = current + by;
      entries.set(key, { value: String(next), expiresAt: e ? e.expiresAt : expiresAt });
      noteWrite(now);
      return next;
    },
  };
}
