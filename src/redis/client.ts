import { createHash } from 'node:crypto';
import { configError } from '../core/errors.js';

/**
 * The few ioredis methods the Redis stores call, typed by shape: svcbase never imports a Redis
 * driver, so the host picks the version. Pass an ioredis 5 `Redis` (or `Cluster`) instance; another
 * client fits if it offers these methods with ioredis's argument order and Promise results.
 */
export interface RedisClientLike {
  get(key: string): Promise<string | null>;
  /** Redis 6.2+ `GETDEL`. */
  getdel(key: string): Promise<string | null>;
  del(key: string): Promise<number>;
  evalsha(sha: string, numKeys: number, ...args: string[]): Promise<unknown>;
  eval(script: string, numKeys: number, ...args: string[]): Promise<unknown>;
}

/** A Lua script run with `EVALSHA`, falling back to `EVAL` (which caches it) when Redis answers NOSCRIPT. */
export type RedisScript = (client: RedisClientLike, key: string, args: readonly string[]) => Promise<unknown>;

/**
 * Wraps Lua `source` for one-key calls. The cache can be empty after a Redis restart, a failover or
 * `SCRIPT FLUSH`; the fallback covers all three without a separate `SCRIPT LOAD` step. Every svcbase
 * script touches only `KEYS[1]`, so each runs on one Redis Cluster slot.
 */
export function redisScript(source: string): RedisScript {
  const sha = createHash('sha1').update(source).digest('hex');
  return async (client, key, args) => {
    try {
      return await client.evalsha(sha, 1, key, ...args);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return client.eval(source, 1, key, ...args);
    }
  };
}

/** Checks a store's key prefix: a non-empty string (it namespaces every key the store writes). */
export function redisPrefix(prefix: string | undefined, fallback: string, scope: string): string {
  const value = prefix ?? fallback;
  if (typeof value !== 'string' || value.length === 0) throw configError(scope, 'prefix must be a non-empty string');
  return value;
}

/**
 * How long Redis keeps a key past the moment its entry stops counting (ms). Entries are judged by
 * the caller's `now`; the Redis TTL only reclaims memory, and this margin keeps an entry alive for an
 * instance whose clock runs behind the writer's.
 */
export const REDIS_EXPIRY_GRACE_MS = 60_000;

/** The Lua lines that set `now` to the Redis server's time in epoch milliseconds. */
export const LUA_SERVER_NOW = `local t = redis.call('TIME')
local server_now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;
