import { afterAll, describe, expect, it } from 'vitest';
import { postgresCounterStore, postgresKvStore } from '../../src/postgres.js';
import { runCounterStoreConformance, runKvStoreConformance } from '../../src/testing.js';
import { connectTestPostgres } from './postgres-env.js';

const db = await connectTestPostgres('pg_stores');
let tables = 0;
afterAll(async () => db?.drop());

// Skipped (loudly, see connectTestPostgres) only when PostgreSQL is unreachable outside CI; CI fails instead.
describe.skipIf(!db)('PostgreSQL KvStore and CounterStore', () => {
  const sql = db!.sql;
  const schema = db!.schema;
  runKvStoreConformance('postgres', () => postgresKvStore({ sql, schema, table: `kv${tables++}` }));
  runCounterStoreConformance('postgres (caller clock)', () => postgresCounterStore({ sql, schema, table: `rate${tables++}`, clock: 'caller' }));

  describe('postgresKvStore', () => {
    it('two stores (instances) on one table see each other: exactly one take wins over both', async () => {
      const [a, b] = [postgresKvStore({ sql, schema, table: 'shared_kv' }), postgresKvStore({ sql, schema, table: 'shared_kv' })];
      await a.put('code', '123456', 2_000);
      const taken = await Promise.all(Array.from({ length: 200 }, (_, i) => (i % 2 ? a : b).take('code', 1_000)));
      expect(taken.filter((v) => v === '123456')).toHaveLength(1);
    });

    it('keys with SQL quotes, unicode and case differences are distinct and stored verbatim', async () => {
      const kv = postgresKvStore({ sql, schema, table: `kv${tables++}` });
      const keys = ["a'; DROP TABLE x; --", 'Key', 'key', '中文🔑', '__proto__'];
      for (const [i, key] of keys.entries()) await kv.put(key, `v${i}'"`, 10_000);
      for (const [i, key] of keys.entries()) expect(await kv.get(key, 0)).toBe(`v${i}'"`);
    });

    it('U+0000 in a key or value is refused on write and absent on read (PostgreSQL text cannot hold it)', async () => {
      const kv = postgresKvStore({ sql, schema, table: `kv${tables++}` });
      await expect(kv.put('a\u0000b', 'v', 10_000)).rejects.toThrow(/U\+0000/);
      await expect(kv.put('k', 'v\u0000', 10_000)).rejects.toThrow(/U\+0000/);
      expect(await kv.get('a\u0000b', 0)).toBeNull();
      expect(await kv.take('a\u0000b', 0)).toBeNull();
    });

    it('increment of a key holding text is a configuration error, and the value is unchanged', async () => {
      const kv = postgresKvStore({ sql, schema, table: `kv${tables++}` });
      await kv.put('t', 'not a number', 10_000);
      await expect(kv.increment('t', 1, 10_000, 0)).rejects.toThrow(/does not hold an integer/);
      expect(await kv.get('t', 0)).toBe('not a number');
    });

    it('refuses table names that are not identifiers', () => {
      expect(() => postgresKvStore({ sql, table: 'kv; DROP TABLE x' })).toThrow(/invalid identifier/);
      expect(() => postgresKvStore({ sql, schema: 'a"b' })).toThrow(/invalid identifier/);
    });

    it('eight instances creating the table at once all succeed (DDL races are retried)', async () => {
      const stores = Array.from({ length: 8 }, () => postgresKvStore({ sql, schema, table: 'raced_kv' }));
      const results = await Promise.all(stores.map((kv, i) => kv.putIfAbsent('k', String(i), 10_000, 0)));
      expect(results.filter(Boolean)).toHaveLength(1);
    });
  });

  describe('postgresCounterStore', () => {
    it('server clock: 1,000 concurrent consumes over two instances allow exactly one', async () => {
      const [a, b] = [0, 1].map(() => postgresCounterStore({ sql, schema, table: 'shared_rate' }));
      const w = [{ limit: 1, windowMs: 60_000 }];
      const results = await Promise.all(Array.from({ length: 1000 }, (_, i) => (i % 2 ? a! : b!).consume('hot', w, 0)));
      expect(results.filter((r) => r.allowed)).toHaveLength(1);
      const denied = results.find((r) => !r.allowed)!;
      expect(denied.retryAfterMs).toBeGreaterThan(50_000);
      expect(denied.retryAfterMs).toBeLessThanOrEqual(60_000);
    }, 60_000);

    it('server clock: hits are recorded at the database time, whatever `now` the caller passes', async () => {
      const store = postgresCounterStore({ sql, schema, table: `rate${tables++}` });
      const w = [{ limit: 1, windowMs: 3_600_000 }];
      expect((await store.consume('k', w, 0)).allowed).toBe(true);
      // A caller far in the future would be allowed with the caller's clock; the server's says no.
      expect((await store.consume('k', w, Date.now() + 10 * 3_600_000)).allowed).toBe(false);
      const rows = await sql.unsafe(`SELECT hits::text AS hits FROM "${schema}"."rate${tables - 1}" WHERE key = 'k'`);
      const hits = rows[0]!.hits as string;
      const at = Number(String(hits).slice(1, -1));
      expect(Math.abs(at - Date.now())).toBeLessThan(60_000);
    });

    it('a caller with shorter windows never drops the hits another limit still counts', async () => {
      const store = postgresCounterStore({ sql, schema, table: `rate${tables++}`, clock: 'caller' });
      const day = [{ limit: 1, windowMs: 86_400_000 }];
      expect((await store.consume('k', day, 1_000)).allowed).toBe(true);
      expect((await store.consume('k', [{ limit: 5, windowMs: 1_000 }], 10_000)).allowed).toBe(true);
      expect((await store.consume('k', day, 20_000)).allowed).toBe(false);
    });

    it('refuses an unknown clock', () => {
      expect(() => postgresCounterStore({ sql, clock: 'local' as never })).toThrow(/clock must be/);
    });
  });
});
