import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { loadOptional } from '../core/optional-module.js';
import type { CounterStore } from '../counters/port.js';
import type { EventBus } from '../events/port.js';
import type { KvStore } from '../kv/port.js';
import { redisCounterStore } from '../redis/redis-counter-store.js';
import type { RedisClientLike } from '../redis/client.js';
import { type RedisPublisherLike, type RedisSubscriberLike, redisEventBus } from '../redis/redis-event-bus.js';
import { redisKvStore } from '../redis/redis-kv-store.js';
import { type RedisScanLike, applicationPrefix, carryUnscopedKeys } from './redis-keys.js';
import { type SettleGuard, pgSettleGuard } from './pg-settle-guard.js';
import type { StorageAdapter } from '../storage/port.js';
import type { PgClient } from '../storage/postgres/pg-client.js';
import { postgresStorage } from '../storage/postgres/postgres-adapter.js';
import type { SqliteDatabase } from '../storage/sqlite/database-shape.js';
import { sqliteStorage } from '../storage/sqlite/sqlite-adapter.js';
import { sqliteCounterStore } from '../counters/sqlite-counter-store.js';
import { sqliteKvStore } from '../kv/sqlite-kv.js';

/** Where the CLI keeps data: SQLite in `dbFile`, or PostgreSQL at `databaseUrl`; Redis for the shared stores at `redisUrl`. */
export interface StoreSettings {
  readonly dbFile: string;
  readonly databaseUrl: string;
  readonly redisUrl: string;
  /** Key prefix in Redis (default `svc:`); the application id follows it in every key. */
  readonly redisPrefix: string;
  /** The application the stores serve: its id is part of every Redis key. */
  readonly applicationId: string;
  /** Uploads' folder on PostgreSQL (on SQLite they live beside the database file). */
  readonly filesDir: string;
}

/** The stores a service runs on, what they are (for the banner), and how to close them. */
export interface OpenedStores {
  readonly storage: StorageAdapter;
  readonly kv?: KvStore;
  readonly counters?: CounterStore;
  readonly bus?: EventBus;
  readonly where: string;
  readonly filesDir: string;
  /**
   * Copies Redis keys an earlier version wrote without the application id into this application's
   * keys, once (redis-keys.ts); 0 without Redis. Run it before the service starts.
   */
  carryOver(): Promise<number>;
  /** Resolves once Redis answers (at once without Redis); rejects after `ms` without it. */
  connected(ms?: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * How long a request waits on a store that does not answer (ms): the connect timeout, and Redis's
 * command timeout. With no offline queue a request meets a Redis that is down at once, and a request
 * whose command was sent before it went down gives up after this long: every request answers within
 * about one such bound, 11230 when the store is away (docs/scaling.md, D150).
 */
export const STORE_TIMEOUT_MS = 1000;

/** The longest pause between two attempts to reconnect to Redis (ms); it never stops trying. */
const REDIS_RECONNECT_CEILING_MS = 1000;

type RedisClient = RedisClientLike & RedisPublisherLike & RedisSubscriberLike & RedisScanLike & {
  readonly status: string;
  quit(): Promise<unknown>;
  disconnect(): void;
  once(event: 'ready', listener: () => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
};
type RedisConstructor = new (url: string, options: Record<string, unknown>) => RedisClient;

/**
 * The quick start's ioredis options. The commands client fails fast: no offline queue, no retries of
 * a command, a command timeout. The subscriber keeps its offline queue (a SUBSCRIBE made while it
 * connects waits for the connection, bounded by the same timeout) and both reconnect forever with a
 * backoff capped at one second, so the service recovers by itself when Redis returns.
 */
export function redisOptions(role: 'commands' | 'subscriber'): Record<string, unknown> {
  return {
    connectTimeout: STORE_TIMEOUT_MS,
    commandTimeout: STORE_TIMEOUT_MS,
    retryStrategy: (attempt: number) => Math.min(50 * attempt, REDIS_RECONNECT_CEILING_MS),
    ...(role === 'commands' ? { enableOfflineQueue: false, maxRetriesPerRequest: 0 } : {}),
  };
}

/** Closes an ioredis client: QUIT when it is connected, else drops the socket (QUIT would be refused). */
async function closeRedis(client: RedisClient): Promise<void> {
  if (client.status !== 'ready') return client.disconnect();
  await client.quit().catch(() => client.disconnect());
}

/** A missing optional package the command needs: the CLI prints the message and exits 1. */
export class MissingPackageError extends Error {
  override readonly name = 'MissingPackageError';
  constructor(pkg: string, why: string) {
    super(`${why} needs the package ${pkg}: run npm install ${pkg}`);
  }
}

/** A store that did not answer at start-up: the CLI prints the message and exits 1. */
export class StoreStartError extends Error {
  override readonly name = 'StoreStartError';
}

function required<T>(pkg: string, why: string): T {
  const mod = loadOptional(pkg) as { default?: T } | T | undefined;
  if (mod === undefined) throw new MissingPackageError(pkg, why);
  return ((mod as { default?: T }).default ?? mod) as T;
}

const withoutPassword = (url: string) => url.replace(/\/\/[^@/]*@/, '//');

/**
 * The options of the CLI's postgres client: 10 connections, a connect timeout in seconds (a request
 * meets a database that is down within it, 11230), `onclose` for the settle guard, and JIT off on
 * every connection: an LLVM compile of a hostile read would swallow its budget's cancel (D199).
 */
export function postgresClientOptions(onclose: () => void): Record<string, unknown> {
  return { max: 10, onnotice: () => {}, connect_timeout: Math.ceil(STORE_TIMEOUT_MS / 1000), onclose, connection: { jit: 'off' } };
}

/**
 * Opens the stores: PostgreSQL tables when a database URL is given (else SQLite in `dbFile`), the
 * KvStore, CounterStore and event bus in Redis when a Redis URL is given (else SQLite beside the
 * tables, or, on PostgreSQL without Redis, the service's in-process defaults: one instance only).
 */
export function openStores(settings: StoreSettings): OpenedStores {
  const closers: Array<() => Promise<void> | void> = [];
  const close = async () => {
    for (const closer of closers.reverse()) await closer();
  };
  let storage: StorageAdapter;
  let where: string;
  let filesDir: string;
  let kv: KvStore | undefined;
  let counters: CounterStore | undefined;
  let bus: EventBus | undefined;
  let db: SqliteDatabase | undefined;
  let carryOver = async () => 0;
  if (settings.databaseUrl) {
    const postgres = required<(url: string, options: object) => PgClient>('postgres', `SVC_DATABASE_URL (${withoutPassword(settings.databaseUrl)})`);
    // The guard bounds the statements the driver can strand around a closed connection (D153, D196).
    let guard: SettleGuard | undefined;
    const driver = postgres(settings.databaseUrl, postgresClientOptions(() => guard?.connectionClosed()));
    guard = pgSettleGuard(driver);
    const sql = guard.client;
    closers.push(() => sql.end({ timeout: 5 }));
    storage = postgresStorage({ sql });
    where = `PostgreSQL ${withoutPassword(settings.databaseUrl)}`;
    filesDir = resolve(settings.filesDir);
  } else {
    const Database = required<new (file: string) => SqliteDatabase & { open: boolean; close(): void }>('better-sqlite3', 'SQLite storage');
    const dbFile = resolve(settings.dbFile);
    mkdirSync(dirname(dbFile), { recursive: true });
    const database = new Database(dbFile);
    db = database;
    // The storage closes the file with the service; this covers a service never created (a failed listen).
    closers.push(() => void (database.open && database.close()));
    storage = sqliteStorage({ database });
    where = dbFile;
    filesDir = resolve(dirname(dbFile), 'files');
  }
  let connected = async (_ms?: number) => {};
  if (settings.redisUrl) {
    const Redis = required<RedisConstructor>('ioredis', `SVC_REDIS_URL (${withoutPassword(settings.redisUrl)})`);
    const redis = new Redis(settings.redisUrl, redisOptions('commands'));
    closers.push(() => closeRedis(redis));
    // Connection errors reach requests as 11230; without a listener ioredis would print each attempt's.
    redis.on('error', () => {});
    connected = (ms = 10_000) => untilReady(redis, ms, withoutPassword(settings.redisUrl));
    // The application id in every key: deployments sharing one Redis and prefix never share SMS ids, codes or limits.
    const prefix = applicationPrefix(settings.redisPrefix, settings.applicationId);
    kv = redisKvStore({ client: redis, prefix: `${prefix}kv:` });
    counters = redisCounterStore({ client: redis, prefix: `${prefix}rate:` });
    carryOver = () => carryUnscopedKeys(redis, settings.redisPrefix, settings.applicationId);
    // Pub/sub needs a connection of its own: realtime fan-out and the caches' invalidations.
    const subscriber = new Redis(settings.redisUrl, redisOptions('subscriber'));
    subscriber.on('error', () => {});
    closers.push(() => closeRedis(subscriber));
    bus = redisEventBus({ publisher: redis, subscriber, prefix: `${prefix}bus:` });
    where += `, Redis ${withoutPassword(settings.redisUrl)}`;
  } else if (db) {
    kv = sqliteKvStore({ database: db });
    counters = sqliteCounterStore({ database: db });
  }
  return { storage, ...(kv ? { kv } : {}), ...(counters ? { counters } : {}), ...(bus ? { bus } : {}), where, filesDir, carryOver, connected, close };
}

/** Resolves when `client` is ready (at once if it is), rejects after `ms`. */
function untilReady(client: RedisClient, ms: number, where: string): Promise<void> {
  if (client.status === 'ready') return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new StoreStartError(`Redis at ${where} did not answer within ${ms} ms (is it running? SVC_REDIS_URL)`)), ms);
    client.once('ready', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}
