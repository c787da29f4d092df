import type { Clock } from '../../core/clock.js';
import { svcError } from '../../core/errors.js';
import { KV_NO_EXPIRY, type KvStore } from '../../kv/port.js';

/** The hosted limits of `oPersistence` for a normal application. */
export const PERSISTENCE_LIMITS = { maxItems: 50, maxItemBytes: 10 * 1024 * 1024, maxTotalBytes: 10 * 1024 * 1024 } as const;

const PART = /^[A-Za-z0-9_.-]{1,64}$/;
const LOCK_MS = 10_000;

/** Sizes of an application's items by path (`a/b/c`). */
type Index = Record<string, number>;

/** A path of 1 to 8 parts of letters, digits, `_`, `.`, `-` (not `.` or `..`): `a/b/c`; null when illegal. */
export function persistencePath(parts: readonly unknown[]): string | null {
  if (parts.length === 0 || parts.length > 8) return null;
  for (const part of parts) if (typeof part !== 'string' || !PART.test(part) || part === '.' || part === '..') return null;
  return parts.join('/');
}

/**
 * `oPersistence` of Java functions: small byte items per application in the KvStore (so every
 * instance sees them; "unreliable" as on the hosted service: a memory KvStore loses them on restart).
 * Writes and deletes hold the application's lock (a KvStore key, so instances exclude each other),
 * under which the index of sizes is the one truth the limits are checked against: 50 items, 10 MB
 * each and in all.
 */
export class PersistenceStore {
  constructor(
    private readonly kv: KvStore,
    private readonly clock: Clock,
    /** Waits between tries of a held lock (real time: a lock is held for milliseconds). */
    private readonly pause: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  ) {}

  async size(app: string, path: string): Promise<number> {
    return (await this.index(app))[path] ?? 0;
  }

  async read(app: string, path: string): Promise<Buffer | null> {
    const data = await this.kv.get(this.dataKey(app, path), this.clock.now());
    return data === null ? null : Buffer.from(data, 'base64');
  }

  /** Writes (or appends to) an item; 11005 past a limit, nothing written. Returns the item's new size. */
  async write(app: string, path: string, bytes: Buffer, append: boolean): Promise<number> {
    return this.locked(app, async (index) => {
      const old = append ? await this.read(app, path) : null;
      const data = old ? Buffer.concat([old, bytes]) : bytes;
      const others = Object.entries(index).filter(([p]) => p !== path);
      if (!(path in index) && others.length >= PERSISTENCE_LIMITS.maxItems) throw svcError('invalidParameter', `oPersistence holds at most ${PERSISTENCE_LIMITS.maxItems} items`);
      if (data.length > PERSISTENCE_LIMITS.maxItemBytes) throw svcError('invalidParameter', `an oPersistence item holds at most ${PERSISTENCE_LIMITS.maxItemBytes} bytes`);
      const total = others.reduce((sum, [, size]) => sum + size, 0) + data.length;
      if (total > PERSISTENCE_LIMITS.maxTotalBytes) throw svcError('invalidParameter', `oPersistence holds at most ${PERSISTENCE_LIMITS.maxTotalBytes} bytes in all`);
      await this.kv.put(this.dataKey(app, path), data.toString('base64'), KV_NO_EXPIRY);
      return { index: { ...index, [path]: data.length }, result: data.length };
    });
  }

  async delete(app: string, path: string): Promise<boolean> {
    return this.locked(app, async (index) => {
      if (!(path in index)) return { index, result: false };
      await this.kv.delete(this.dataKey(app, path));
      const next = { ...index };
      delete next[path];
      return { index: next, result: true };
    });
  }

  /** Nested sizes: `{"a": {"b": 12}}` for an item `a/b` of 12 bytes. */
  async struct(app: string): Promise<Record<string, unknown>> {
    const out: Record<string, unknown> = {};
    for (const [path, size] of Object.entries(await this.index(app))) {
      const parts = path.split('/');
      let node = out;
      for (const part of parts.slice(0, -1)) {
        const next = node[part];
        node = (typeof next === 'object' && next !== null ? next : (node[part] = {})) as Record<string, unknown>;
      }
      node[parts[parts.length - 1]!] = size;
    }
    return out;
  }

  private dataKey(app: string, path: string): string {
    return `jpersist:${app}:data:${path}`;
  }

  private async index(app: string): Promise<Index> {
    const text = await this.kv.get(`jpersist:${app}:index`, this.clock.now());
    return text ? (JSON.parse(text) as Index) : {};
  }

  private async locked<T>(app: string, work: (index: Index) => Promise<{ index: Index; result: T }>): Promise<T> {
    const lock = `jpersist:${app}:lock`;
    for (let attempt = 0; ; attempt++) {
      const now = this.clock.now();
      if (await this.kv.putIfAbsent(lock, '1', now + LOCK_MS, now)) break;
      if (attempt >= 100) throw svcError('invalidParameter', 'oPersistence is busy, try again');
      await this.pause(20);
    }
    try {
      const { index, result } = await work(await this.index(app));
      await this.kv.put(`jpersist:${app}:index`, JSON.stringify(index), KV_NO_EXPIRY);
      return result;
    } finally {
      await this.kv.delete(lock);
    }
  }
}
