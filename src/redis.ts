/**
 * Redis stores for running several instances of one service: a KvStore and a CounterStore shared
 * through one Redis (6.2+). Bring your own ioredis 5 client; svcbase never imports the driver.
 *
 * @example
 * const redis = new Redis(process.env.REDIS_URL);
 * createService({ storage, kv: redisKvStore({ client: redis, prefix: 'myapp:kv:' }),
 *   counters: redisCounterStore({ client: redis, prefix: 'myapp:rate:' }), applications: [...] });
 */
export { type RedisClientLike, REDIS_EXPIRY_GRACE_MS } from './redis/client.js';
export { type RedisKvOptions, redisKvStore } from './redis/redis-kv-store.js';
export { type RedisCounterClock, type RedisCounterOptions, redisCounterStore } from './redis/redis-counter-store.js';
export { type RedisEventBusOptions, type RedisPublisherLike, type RedisSubscriberLike, redisEventBus } from './redis/redis-event-bus.js';
