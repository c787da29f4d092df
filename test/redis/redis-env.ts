import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

export { lineReader } from '../helpers/line-reader.js';

/** The Redis the tests use: SVCBASE_TEST_REDIS or 127.0.0.1:6379. */
export const REDIS_URL = process.env.SVCBASE_TEST_REDIS ?? 'redis://127.0.0.1:6379';

/**
 * A client for a Redis test file, or null when Redis is unreachable. Outside CI the suite is then
 * skipped with a loud message; with CI=true an unreachable Redis fails the run.
 */
export async function connectTestRedis(suite: string): Promise<Redis | null> {
  const probe = new Redis(REDIS_URL, { lazyConnect: true, connectTimeout: 2000, maxRetriesPerRequest: 0, retryStrategy: () => null });
  let lastError: unknown;
  probe.on('error', (error) => (lastError = error));
  try {
    await probe.connect();
    await probe.ping();
  } catch (error) {
    const cause = lastError ?? error;
    const reason = cause instanceof Error ? cause.message : String(cause);
    if (process.env.CI === 'true') throw new Error(`[${suite}] Redis at ${REDIS_URL} is unreachable (${reason}); CI needs it`);
    console.warn(
      `\n${'!'.repeat(78)}\n!! ${suite}: Redis at ${REDIS_URL} is unreachable (${reason}).\n` +
        `!! SKIPPING the Redis store tests. Start redis-server (or set SVCBASE_TEST_REDIS); CI=true fails here.\n${'!'.repeat(78)}\n`,
    );
    return null;
  } finally {
    probe.disconnect();
  }
  return new Redis(REDIS_URL);
}

/** A key prefix no other test run shares. */
export function runPrefix(suite: string): string {
  return `svcbase-test:${suite}:${process.pid}-${randomBytes(4).toString('hex')}:`;
}

/** Deletes every key under `prefix` (the test run's keys). */
export async function deleteKeys(redis: Redis, prefix: string): Promise<number> {
  let deleted = 0;
  for await (const keys of redis.scanStream({ match: `${prefix}*`, count: 1000 }) as AsyncIterable<string[]>) {
    if (keys.length > 0) deleted += await redis.del(...keys);
  }
  return deleted;
}

