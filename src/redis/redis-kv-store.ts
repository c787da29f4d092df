import { configError } from '../core/errors.js';
import { KV_NO_EXPIRY, type KvStore } from '../kv/port.js';
import { REDIS_EXPIRY_GRACE_MS, type RedisClientLike, redisPrefix, redisScript } from './client.js';
import { KV_INCREMENT, KV_PUT, KV_PUT_IF_ABSENT } from './kv-lua.js';

export interface RedisKvOptions {
  /** An ioredis 5 client (typed by shape). The host owns it: the store never connects or quits it. */
  client: RedisClientLike;
  /** Prepended to every key (default `svc:kv:`). Give each service, and each test run, its own. */
  prefix?: string;
}

const put = redisScript(KV_PUT);
const putIfAbsent = redisScript(KV_PUT_IF_ABSENT);
const increment = redisScript(KV_INCREMENT);

/**
 * KvStore on Redis, shared by every instance using the same Redis and prefix. Each method is one
 * Redis command or one Lua script, so each is atomic: `take` is `GETDEL`, `putIfAbsent` and
 * `increment` are scripts (read, judge against the caller's `now`, write). A key holds
 * `<expiresAt>:<value>`; the Redis TTL is the entry's remaining life plus a one-minute grace and only
 * reclaims memory (docs/scaling.md). Needs Redis 6.2 or later.
 *
 * @example const kv = redisKvStore({ client: new Redis(process.env.REDIS_URL), prefix: 'myapp:kv:' });
 */
export function redisKvStore(options: RedisKvOptions): KvStore {
  const client = options.client;
  const prefix = redisPrefix(options.prefix, 'svc:kv:', 'redis-kv');
  const grace = String(REDIS_EXPIRY_GRACE_MS);
  return {
    async put(key, value, expiresAt) {
      await put(client, prefix + key, [`${expiresAt}:${value}`, expiresAt >= KV_NO_EXPIRY ? '' : String(expiresAt), grace]);
    },
    async putIfAbsent(key, value, expiresAt, now) {
      return (await putIfAbsent(client, prefix + key, [`${expiresAt}:${value}`, String(now), ttl(expiresAt, now)])) === 1;
    },
    async get(key, now) {
      return live(await client.get(prefix + key), now);
    },
    async take(key, now) {
      // An expired entry is deleted too: it was absent already.
      return live(await client.getdel(prefix + key), now);
    },
    async delete(key) {
      await client.del(prefix + key);
    },
    increment(key, by, expiresAt, now) {
      if (!Number.isSafeInteger(by)) throw configError('redis-kv', `increment needs an integer, got ${by}`);
      return increment(client, prefix + key, [String(by), String(expiresAt), String(now), ttl(expiresAt, now)]).then((result) => {
        if (typeof result !== 'string') throw configError('redis-kv', `key '${key}' does not hold an integer`);
        return Number(result);
      });
    },
  };
}

/** The Redis TTL argument: remaining life by the caller's clock plus the grace; '' for no expiry. */
function ttl(expiresAt: number, now: number): string {
  if (expiresAt >= KV_NO_EXPIRY) return '';
  return String(Math.max(Math.ceil(expiresAt - now), 0) + REDIS_EXPIRY_GRACE_MS);
}

/** The value of a stored `<expiresAt>:<value>` entry while `now` is before its expiry. */
function live(entry: string | null, now: number): string | null {
  if (entry === null) return null;
  const colon = entry.indexOf(':');
  return Number(entry.slice(0, colon)) > now ? entry.slice(colon + 1) : null;
}
