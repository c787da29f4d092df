import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { dateValue } from '../../src/core/values.js';
import type { StoredRecord } from '../../src/core/values.js';
import { sqliteCounterStore } from '../../src/counters/sqlite-counter-store.js';
import { sqliteKvStore } from '../../src/kv/sqlite-kv.js';
import { sqliteStorage } from '../../src/storage/sqlite/index.js';

// Regression: the KvStore and CounterStore shared the storage adapter's better-sqlite3 connection, so
// a statement issued while a storage transaction was open joined it and was rolled back with it.
describe('stores sharing the storage connection', () => {
  it('wait for an open storage transaction instead of joining it', async () => {
    const db = new Database(':memory:');
    const storage = sqliteStorage({ database: db });
    const kv = sqliteKvStore({ database: db });
    const counters = sqliteCounterStore({ database: db });
    const ref = { namespace: 'app', className: 'Thing' };
    const now = dateValue(Date.UTC(2026, 0, 1));
    const record = { objectId: 'abcdefghij', createdAt: now, updatedAt: now, n: 1 } as StoredRecord;
    let sideWrites: Promise<unknown> | undefined;
    await expect(
      storage.transaction(async (tx) => {
        await tx.ensureColumns(ref, { n: { type: 'Number' } });
        await tx.insert(ref, record);
        sideWrites = Promise.all([
          Promise.resolve(kv.put('code', 'v', 1e15)),
          Promise.resolve(counters.consume('phone', [{ limit: 1, windowMs: 60_000 }], 1000)),
        ]);
        await new Promise((resolve) => setImmediate(resolve));
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    await sideWrites;
    expect(await kv.get('code', 0)).toBe('v');
    expect((await counters.consume('phone', [{ limit: 1, windowMs: 60_000 }], 2000)).allowed).toBe(false);
    expect(await storage.get(ref, 'abcdefghij')).toBeNull();
    await storage.close();
  });
});
