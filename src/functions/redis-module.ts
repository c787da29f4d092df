import { svcError } from '../core/errors.js';

/**
 * The ioredis methods `modules.oRedis` calls, typed by shape (svcbase never imports a Redis driver):
 * pass an ioredis 5 client.
 */
export interface FunctionRedisClient {
  set(key: string, value: string): Promise<unknown>;
  set(key: string, value: string, mode: 'EX', seconds: number): Promise<unknown>;
  get(key: string): Promise<string | null>;
  hset(key: string, field: string, value: string): Promise<number>;
  hget(key: string, field: string): Promise<string | null>;
  hgetall(key: string): Promise<Record<string, string>>;
  lpush(key: string, ...values: string[]): Promise<number>;
  rpush(key: string, ...values: string[]): Promise<number>;
  lrange(key: string, start: number, stop: number): Promise<string[]>;
  lpop(key: string): Promise<string | null>;
  rpop(key: string): Promise<string | null>;
  sadd(key: string, ...members: string[]): Promise<number>;
  smembers(key: string): Promise<string[]>;
  spop(key: string): Promise<string | null>;
  spop(key: string, count: number): Promise<string[]>;
  del(...keys: string[]): Promise<number>;
  exists(...keys: string[]): Promise<number>;
  expire(key: string, seconds: number): Promise<number>;
}

/** `functions.redis`: the client and the prefix every application's keys live under. */
export interface FunctionRedisOptions {
  readonly client: FunctionRedisClient;
  /** Default `svc:fn:`; keys become `<prefix><applicationId>:<key>`. */
  readonly prefix?: string;
}

/** `modules.oRedis` as the hosted service documents it (rest-facts §7.2): every method returns a promise. */
export interface RedisModule {
  set(key: string, value: string, expireSeconds?: number): Promise<'OK'>;
  get(key: string): Promise<string | null>;
  hset(key: string, field: string, value: string): Promise<number>;
  hget(key: string, field: string): Promise<string | null>;
  hgetall(key: string): Promise<Record<string, string> | null>;
  lpush(key: string, ...values: string[]): Promise<number>;
  rpush(key: string, ...values: string[]): Promise<number>;
  lrange(key: string, start: number, stop: number): Promise<string[]>;
  lpop(key: string): Promise<string | null>;
  rpop(key: string): Promise<string | null>;
  sadd(key: string, ...members: string[]): Promise<number>;
  smembers(key: string): Promise<string[]>;
  spop(key: string, count?: number): Promise<string | string[] | null>;
  del(key: string): Promise<number>;
  exists(key: string): Promise<boolean>;
  expire(key: string, seconds: number): Promise<boolean>;
  /** A no-op: the connection is the service's. */
  quit(): Promise<void>;
}

const MAX_KEY = 512;
const MAX_VALUE = 512 * 1024;
const MAX_ITEMS = 1000;

/**
 * `oRedis` over the host's Redis, every key under `<prefix><applicationId>:` so applications never
 * see each other's keys. Keys are at most 512 characters, values 512 KiB, one call adds at most 1,000
 * items. Without `functions.redis` every method answers 11039.
 */
export function redisModule(options: FunctionRedisOptions | undefined, applicationId: string): RedisModule {
  const prefix = `${options?.prefix ?? 'svc:fn:'}${applicationId}:`;
  const client = (): FunctionRedisClient => {
    if (!options) throw svcError('redisNotConfigured');
    return options.client;
  };
  const key = (name: unknown): string => {
    if (typeof name !== 'string' || name.length === 0 || name.length > MAX_KEY) throw svcError('invalidParameter', `oRedis: a key is a string of 1 to ${MAX_KEY} characters`);
    return prefix + name;
  };
  const value = (v: unknown): string => {
    const text = typeof v === 'string' ? v : String(v);
    if (text.length > MAX_VALUE) throw svcError('invalidParameter', `oRedis: values are at most ${MAX_VALUE} characters`);
    return text;
  };
  const values = (list: readonly unknown[]): string[] => {
    if (list.length === 0 || list.length > MAX_ITEMS) throw svcError('invalidParameter', `oRedis: 1 to ${MAX_ITEMS} values per call`);
    return list.map(value);
  };
  const seconds = (s: unknown): number => {
    if (typeof s !== 'number' || !Number.isSafeInteger(s) || s < 1) throw svcError('invalidParameter', 'oRedis: an expiry is a positive whole number of seconds');
    return s;
  };
  const howMany = (n: unknown): number => {
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 1 || n > MAX_ITEMS) throw svcError('invalidParameter', `oRedis: a count is a whole number from 1 to ${MAX_ITEMS}`);
    return n;
  };
  const call = async <T>(work: () => Promise<T>): Promise<T> => work();
  return {
    set: (k, v, expire) => call(async () => (await (expire === undefined ? client().set(key(k), value(v)) : client().set(key(k), value(v), 'EX', seconds(expire))), 'OK' as const)),
    get: (k) => call(() => client().get(key(k))),
    hset: (k, f, v) => call(() => client().hset(key(k), value(f), value(v))),
    hget: (k, f) => call(() => client().hget(key(k), value(f))),
    hgetall: (k) => call(async () => {
      const all = await client().hgetall(key(k));
      return Object.keys(all).length === 0 ? null : all;
    }),
    lpush: (k, ...v) => call(() => client().lpush(key(k), ...values(v))),
    rpush: (k, ...v) => call(() => client().rpush(key(k), ...values(v))),
    lrange: (k, start, stop) => call(() => client().lrange(key(k), Math.trunc(start), Math.trunc(stop))),
    lpop: (k) => call(() => client().lpop(key(k))),
    rpop: (k) => call(() => client().rpop(key(k))),
    sadd: (k, ...m) => call(() => client().sadd(key(k), ...values(m))),
    smembers: (k) => call(() => client().smembers(key(k))),
    spop: (k, count) => call<string | string[] | null>(() => (count === undefined ? client().spop(key(k)) : client().spop(key(k), howMany(count)))),
    del: (k) => call(() => client().del(key(k))),
    exists: (k) => call(async () => (await client().exists(key(k))) > 0),
    expire: (k, s) => call(async () => (await client().expire(key(k), seconds(s))) === 1),
    quit: async () => {},
  };
}
