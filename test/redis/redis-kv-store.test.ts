import { type Cluster, Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { KV_NO_EXPIRY } from '../../src/kv/port.js';
import { REDIS_EXPIRY_GRACE_MS, type RedisClientLike, redisKvStore } from '../../src/redis.js';
import { runKvStoreConformance } from '../../src/testing.js';
import { connectTestRedis, deleteKeys, runPrefix } from './redis-env.js';

const T0 = Date.UTC(2026, 0, 1);
const redis = await connectTestRedis('redis-kv-store');
const prefix = runPrefix('kv');
let stores = 0;
/** A store with a prefix of its own, so contract cases never see each other's keys. */
const fresh = () => `${prefix}${stores++}:`;

afterAll(async () => {
  if (!redis) return;
  await deleteKeys(redis, prefix);
  expect(await redis.keys(`${prefix}*`)).toEqual([]);
  await redis.quit();
});

// Skipped (loudly, see connectTestRedis) only when Redis is unreachable outside CI; CI fails instead.
describe.skipIf(!redis)('redisKvStore on Redis', () => suites(redis as Redis));

function suites(redis: Redis): void {
  runKvStoreConformance('redis', () => redisKvStore({ client: redis, prefix: fresh() }));

  describe('redisKvStore specifics', () => {
    it('keeps <expiresAt>:<value> under the prefix with a TTL of the remaining life plus the grace', async () => {
      const p = fresh();
      const kv = redisKvStore({ client: redis, prefix: p });
      expect(await kv.putIfAbsent('code', 'a:b\nc 码', T0 + 300_000, T0)).toBe(true);
      expect(await redis.get(`${p}code`)).toBe(`${T0 + 300_000}:a:b\nc 码`);
      const ttl = await redis.pttl(`${p}code`);
      expect(ttl).toBeGreaterThan(300_000);
      expect(ttl).toBeLessThanOrEqual(300_000 + REDIS_EXPIRY_GRACE_MS);
      expect(await kv.get('code', T0 + 299_999)).toBe('a:b\nc 码');
    });

    it('KV_NO_EXPIRY entries get no Redis TTL; increment keeps the TTL of a live key', async () => {
      const p = fresh();
      const kv = redisKvStore({ client: redis, prefix: p });
      await kv.increment('seq', 1, KV_NO_EXPIRY, T0);
      await kv.put('forever', 'v', KV_NO_EXPIRY);
      expect(await redis.pttl(`${p}seq`)).toBe(-1);
      expect(await redis.pttl(`${p}forever`)).toBe(-1);
      await kv.increment('att', 1, T0 + 10_000, T0);
      const before = await redis.pttl(`${p}att`);
      await kv.increment('att', 1, T0 + 900_000, T0 + 1);
      const after = await redis.pttl(`${p}att`);
      expect(after).toBeLessThanOrEqual(before);
      expect(after).toBeGreaterThan(0);
    });

    it('put measures its TTL on the server clock: an entry already past there lives for the grace only', async () => {
      const p = fresh();
      const kv = redisKvStore({ client: redis, prefix: p });
      await kv.put('old', 'v', T0 - 86_400_000);
      const ttl = await redis.pttl(`${p}old`);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(REDIS_EXPIRY_GRACE_MS);
      expect(await kv.get('old', T0 - 86_400_001)).toBe('v');
    });

    it('stores with different prefixes never see each other', async () => {
      const a = redisKvStore({ client: redis, prefix: fresh() });
      const b = redisKvStore({ client: redis, prefix: fresh() });
      await a.put('same', 'A', T0 + 1000);
      expect(await b.get('same', T0)).toBeNull();
      expect(await b.putIfAbsent('same', 'B', T0 + 1000, T0)).toBe(true);
      expect(await a.take('same', T0)).toBe('A');
    });

    it('increment of a live non-integer value rejects and writes nothing', async () => {
      const kv = redisKvStore({ client: redis, prefix: fresh() });
      await kv.put('text', 'abc', T0 + 1000);
      await expect(kv.increment('text', 1, T0 + 1000, T0)).rejects.toThrow(/does not hold an integer/);
      expect(await kv.get('text', T0)).toBe('abc');
    });

    it('ioredis Redis and Cluster instances fit the client shape (checked by tsc)', () => {
      const fits = (client: RedisClientLike) => typeof client.evalsha;
      expect(fits(redis)).toBe('function');
      const fitsCluster: (client: Cluster) => string = fits;
      expect(fitsCluster).toBeTypeOf('function');
    });

    it('refuses an empty prefix', () => {
      expect(() => redisKvStore({ client: redis, prefix: '' })).toThrow(/prefix/);
    });

    it('scripts are reloaded after the Redis script cache is emptied (restart, failover, SCRIPT FLUSH)', async () => {
      const kv = redisKvStore({ client: redis, prefix: fresh() });
      expect(await kv.increment('n', 1, T0 + 1000, T0)).toBe(1);
      await redis.script('FLUSH');
      expect(await kv.increment('n', 1, T0 + 1000, T0)).toBe(2);
      expect(await kv.putIfAbsent('p', 'v', T0 + 1000, T0)).toBe(true);
    });

    it('a dropped connection is re-established by ioredis and the next call succeeds', async () => {
      const own = new Redis(redis.options);
      const kv = redisKvStore({ client: own, prefix: fresh() });
      await kv.put('k', 'v', T0 + 1000);
      const id = (await own.client('ID')) as number;
      const reconnected = new Promise((resolve) => own.once('ready', resolve));
      await redis.client('KILL', 'ID', String(id));
      expect(await kv.get('k', T0)).toBe('v');
      await reconnected;
      await own.quit();
    });

    it('with Redis unreachable every call rejects (no made-up answer)', async () => {
      const down = new Redis({ port: 1, lazyConnect: true, enableOfflineQueue: false, retryStrategy: () => null });
      down.on('error', () => {});
      const kv = redisKvStore({ client: down, prefix: fresh() });
      await expect(kv.putIfAbsent('k', 'v', T0 + 1000, T0)).rejects.toThrow();
      await expect(kv.take('k', T0)).rejects.toThrow();
      down.disconnect();
    });
  });
}
