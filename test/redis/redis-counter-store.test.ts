import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { DAY_MS, MINUTE_MS } from '../../src/counters/rate-limiter.js';
import { REDIS_EXPIRY_GRACE_MS, redisCounterStore } from '../../src/redis.js';
import { CONTRACT_SMS_WINDOWS as SMS, CONTRACT_T0 as T0 } from '../../src/counters/conformance.js';
import { runCounterStoreConformance } from '../../src/testing.js';
import { REDIS_URL, connectTestRedis, deleteKeys, lineReader, runPrefix } from './redis-env.js';

const redis = await connectTestRedis('redis-counter-store');
const prefix = runPrefix('rate');
let stores = 0;
/** A prefix per store, so contract cases never see each other's keys. */
const fresh = () => `${prefix}${stores++}:`;
const ONE_PER_DAY = [{ limit: 1, windowMs: DAY_MS }];

afterAll(async () => {
  if (!redis) return;
  await deleteKeys(redis, prefix);
  expect(await redis.keys(`${prefix}*`)).toEqual([]);
  await redis.quit();
});

/** The Redis server's time in epoch ms. */
async function serverNow(client: Redis): Promise<number> {
  const [seconds, micros] = await client.time();
  return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
}

// Skipped (loudly, see connectTestRedis) only when Redis is unreachable outside CI; CI fails instead.
describe.skipIf(!redis)('redisCounterStore on Redis', () => suites(redis as Redis));

function suites(redis: Redis): void {
  runCounterStoreConformance('redis, caller clock', () => redisCounterStore({ client: redis, prefix: fresh(), clock: 'caller' }));

  describe('redisCounterStore, server clock (the default)', () => {
    it('1,000 concurrent consumes of a 1-hit window: exactly one allowed', async () => {
      const store = redisCounterStore({ client: redis, prefix: fresh() });
      const results = await Promise.all(Array.from({ length: 1000 }, () => store.consume('hot', ONE_PER_DAY, T0)));
      expect(results.filter((r) => r.allowed)).toHaveLength(1);
      const waits = results.filter((r) => !r.allowed).map((r) => r.retryAfterMs);
      expect(Math.max(...waits)).toBeLessThanOrEqual(DAY_MS);
      expect(Math.min(...waits)).toBeGreaterThan(DAY_MS - MINUTE_MS);
    });

    it("records hits at the Redis server's time and ignores the caller's now", async () => {
      const p = fresh();
      const store = redisCounterStore({ client: redis, prefix: p });
      const before = await serverNow(redis);
      expect((await store.consume('k', ONE_PER_DAY, T0)).allowed).toBe(true);
      const after = await serverNow(redis);
      const [, score] = await redis.zrange(`${p}k`, 0, -1, 'WITHSCORES');
      expect(Number(score)).toBeGreaterThanOrEqual(before);
      expect(Number(score)).toBeLessThanOrEqual(after);
      // A caller clock two days later changes nothing: the server says the hit is seconds old.
      expect((await store.consume('k', ONE_PER_DAY, T0 + 2 * DAY_MS)).allowed).toBe(false);
    });

    it('reset forgets a key', async () => {
      const store = redisCounterStore({ client: redis, prefix: fresh() });
      await store.consume('k', SMS, 0);
      await store.reset('k');
      expect((await store.consume('k', SMS, 0)).allowed).toBe(true);
    });

    it('refuses an unknown clock mode', () => {
      expect(() => redisCounterStore({ client: redis, clock: 'local' as 'server' })).toThrow(/clock/);
    });
  });

  describe('redisCounterStore specifics', () => {
    it('two hits in the same millisecond both count (unique members)', async () => {
      const p = fresh();
      const store = redisCounterStore({ client: redis, prefix: p, clock: 'caller' });
      const w = [{ limit: 2, windowMs: MINUTE_MS }];
      expect((await store.consume('k', w, T0)).allowed).toBe(true);
      expect((await store.consume('k', w, T0)).allowed).toBe(true);
      expect(await store.consume('k', w, T0)).toEqual({ allowed: false, retryAfterMs: MINUTE_MS });
      expect(await redis.zcard(`${p}k`)).toBe(2);
    });

    it('a key expires from Redis one grace period after its longest window', async () => {
      const p = fresh();
      const store = redisCounterStore({ client: redis, prefix: p, clock: 'caller' });
      await store.consume('k', SMS, T0);
      const ttl = await redis.pttl(`${p}k`);
      expect(ttl).toBeGreaterThan(DAY_MS);
      expect(ttl).toBeLessThanOrEqual(DAY_MS + REDIS_EXPIRY_GRACE_MS);
      // A call with shorter windows that keeps the hit never shortens the TTL.
      expect((await store.consume('k', [{ limit: 5, windowMs: 2 * MINUTE_MS }], T0 + MINUTE_MS)).allowed).toBe(true);
      expect(await redis.zcard(`${p}k`)).toBe(2);
      expect(await redis.pttl(`${p}k`)).toBeGreaterThan(DAY_MS);
    });

    it('two processes, 500 concurrent consumes each of a 1-hit window: exactly one allowed, in both clock modes', async () => {
      const p = fresh();
      const worker = fileURLToPath(new URL('./fixtures/consume-worker.ts', import.meta.url));
      const children = [0, 1].map(() => spawn(process.execPath, ['--import', 'tsx', worker, REDIS_URL, p, '500'], { stdio: ['pipe', 'pipe', 'inherit'] }));
      const lines = children.map(lineReader);
      expect(await Promise.all(lines.map((next) => next()))).toEqual(['ready', 'ready']);
      for (const child of children) child.stdin!.write('go\n');
      const counts = (await Promise.all(lines.map((next) => next()))).map((line) => line.split(' ').map(Number));
      expect(counts[0]![0]! + counts[1]![0]!).toBe(1);
      expect(counts[0]![1]! + counts[1]![1]!).toBe(1);
      expect(await redis.zcard(`${p}shared-server`)).toBe(1);
      expect(await redis.zcard(`${p}shared-caller`)).toBe(1);
    }, 60_000);

    it('with Redis unreachable consume rejects: a limit is never waved through', async () => {
      const down = new Redis({ port: 1, lazyConnect: true, enableOfflineQueue: false, retryStrategy: () => null });
      down.on('error', () => {});
      const store = redisCounterStore({ client: down, prefix: fresh() });
      await expect(store.consume('k', SMS, T0)).rejects.toThrow();
      down.disconnect();
    });
  });
}
