import { randomBytes } from 'node:crypto';
import { configError } from '../core/errors.js';
import type { CounterStore } from '../counters/port.js';
import { REDIS_EXPIRY_GRACE_MS, type RedisClientLike, redisPrefix, redisScript } from './client.js';
import { CONSUME } from './counter-lua.js';

/**
 * Whose time a hit is recorded at. `'server'`: the Redis server's clock (`TIME` inside the script),
 * one time line for every instance, whatever their clocks say. `'caller'`: the `now` passed to
 * `consume` (the service's Clock), as the CounterStore contract describes: for FakeClock-driven tests.
 */
export type RedisCounterClock = 'server' | 'caller';

export interface RedisCounterOptions {
  /** An ioredis 5 client (typed by shape). The host owns it: the store never connects or quits it. */
  client: RedisClientLike;
  /** Prepended to every key (default `svc:rate:`). Give each service, and each test run, its own. */
  prefix?: string;
  /** Default `'server'` (docs/scaling.md explains why); `'caller'` for deterministic tests. */
  clock?: RedisCounterClock;
}

const consume = redisScript(CONSUME);

/**
 * CounterStore on Redis: one sorted set of hit times per key, and `consume` as one Lua script
 * (prune, decide every window, record) that Redis runs atomically, so of 1,000 concurrent calls on
 * any number of instances exactly the limit is allowed. Keys expire a minute after their longest
 * window. Needs Redis 6.2 or later.
 *
 * @example const counters = redisCounterStore({ client: new Redis(process.env.REDIS_URL), prefix: 'myapp:rate:' });
 */
export function redisCounterStore(options: RedisCounterOptions): CounterStore {
  const client = options.client;
  const prefix = redisPrefix(options.prefix, 'svc:rate:', 'redis-counters');
  const clock = options.clock ?? 'server';
  if (clock !== 'server' && clock !== 'caller') throw configError('redis-counters', `clock must be 'server' or 'caller', got '${String(clock)}'`);
  // Members: this store's random id plus a sequence number, unique across processes.
  const instance = randomBytes(9).toString('base64url');
  const grace = String(REDIS_EXPIRY_GRACE_MS);
  let sequence = 0;
  return {
    async consume(key, windows, now) {
      const args = [clock === 'server' ? '' : String(now), `${instance}${(sequence++).toString(36)}`, grace];
      for (const w of windows) args.push(String(w.limit), String(w.windowMs));
      const [allowed, retryAfterMs] = (await consume(client, prefix + key, args)) as [number, number];
      return allowed === 1 ? { allowed: true, retryAfterMs: 0 } : { allowed: false, retryAfterMs };
    },
    async reset(key) {
      await client.del(prefix + key);
    },
  };
}
