/**
 * Redis limiter checks per second beside the memory store: the same SMS windows (1/min, 5/h,
 * 10/day) over 100k phone numbers, checked through `redisCounterStore` (server clock, the production
 * default) and through `memoryCounterStore`, measured in the same run. Two rows: one check in
 * flight at a time (the latency a request sees) and 64 in flight (what one instance can push through
 * one connection; ioredis pipelines them).
 *
 * Rates are wall-clock: the Redis side's work happens in the Redis server, which this process's CPU
 * time would not count. Redis runs on the same machine (loopback), sharing its cores. Needs Redis at
 * SVCBASE_BENCH_REDIS (default 127.0.0.1:6379); without it the group reports a skipped row.
 *
 * Beside it, the same checks through `postgresCounterStore` (server clock; a PostgreSQL-only
 * deployment's limiter), on PostgreSQL at SVCBASE_BENCH_POSTGRES (default the local `test` database),
 * in a schema of its own dropped afterwards; skipped with a row when unreachable.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import postgres from 'postgres';
import type { CounterStore, RateWindow } from '../src/counters/port.js';
import { memoryCounterStore } from '../src/counters/memory-counter-store.js';
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../src/counters/rate-limiter.js';
import { postgresCounterStore } from '../src/postgres.js';
import { redisCounterStore } from '../src/redis.js';
import { type BenchConfig, compare, prng } from './harness.js';
import { type ResultRow, comparisonRow, packageVersion, skippedRow } from './report.js';

const WINDOWS: readonly RateWindow[] = [
  { limit: 1, windowMs: MINUTE_MS },
  { limit: 5, windowMs: HOUR_MS },
  { limit: 10, windowMs: DAY_MS },
];
const KEYS = 100_000;
const IN_FLIGHT = 64;
const URL = process.env.SVCBASE_BENCH_REDIS ?? 'redis://127.0.0.1:6379';
const PG_URL = process.env.SVCBASE_BENCH_POSTGRES ?? 'postgres://postgres@127.0.0.1:5432/test';

/** One side: `batch` checks of random numbers per call, all in flight together. */
function side(store: CounterStore, keys: readonly string[], batch: number, seed: number): () => Promise<unknown> {
  const random = prng(seed);
  let now = Date.UTC(2026, 0, 1);
  return () => {
    const calls: unknown[] = [];
    for (let i = 0; i < batch; i++) calls.push(store.consume(keys[Math.floor(random() * keys.length)]!, WINDOWS, (now += 100)));
    return batch === 1 ? Promise.resolve(calls[0]) : Promise.all(calls);
  };
}

export async function run(config: BenchConfig): Promise<ResultRow[]> {
  return [...(await redisRows(config)), ...(await postgresRows(config))];
}

/** The per-check rates of a comparison whose rounds each ran `batch` checks. */
function perCheck(result: Awaited<ReturnType<typeof compare>>, batch: number) {
  const times = (n: number) => n * batch;
  return { ...result, ours: times(result.ours), reference: times(result.reference), oursRounds: result.oursRounds.map(times), referenceRounds: result.referenceRounds.map(times) };
}

async function postgresRows(config: BenchConfig): Promise<ResultRow[]> {
  const sql = postgres(PG_URL, { max: 4, connect_timeout: 2, onnotice: () => {} });
  const schema = `svc_bench_${randomBytes(4).toString('hex')}`;
  try {
    await sql.unsafe(`CREATE SCHEMA "${schema}"`);
  } catch (error) {
    await sql.end({ timeout: 1 });
    return [skippedRow('redis', 'PostgreSQL limiter checks', `PostgreSQL at ${PG_URL} unreachable (${error instanceof Error ? error.message : String(error)})`)];
  }
  const keys = Array.from({ length: KEYS }, (_, i) => `sms:app:138${String(i).padStart(8, '0')}`);
  const [{ server_version: version }] = (await sql.unsafe('SHOW server_version')) as unknown as [{ server_version: string }];
  const rows: ResultRow[] = [];
  try {
    for (const batch of [1, IN_FLIGHT]) {
      config.log(`redis: PostgreSQL limiter checks, ${batch} in flight`);
      const pgSide = side(postgresCounterStore({ sql, schema }), keys, batch, 11);
      const memorySide = side(memoryCounterStore(), keys, batch, 11);
      const result = await compare(config, pgSide, memorySide, { clock: 'wall' });
      rows.push(
        comparisonRow('redis', `SMS limit check, 3 windows, 100k numbers: PostgreSQL store (server clock), ${batch} in flight`, 'memoryCounterStore', perCheck(result, batch), null, {
          unit: 'checks/s',
          detail: { inFlight: batch, postgresServer: version, postgres: packageVersion('postgres'), poolSize: 4 },
          note: 'wall-clock rates; PostgreSQL on loopback on the same machine. Each check is one transaction (lock the key row, decide, record)',
        }),
      );
    }
  } finally {
    await sql.unsafe(`DROP SCHEMA "${schema}" CASCADE`);
    await sql.end({ timeout: 2 });
  }
  return rows;
}

async function redisRows(config: BenchConfig): Promise<ResultRow[]> {
  const client = new Redis(URL, { lazyConnect: true, connectTimeout: 2000, maxRetriesPerRequest: 1, retryStrategy: () => null });
  client.on('error', () => {});
  try {
    await client.connect();
  } catch (error) {
    return [skippedRow('redis', 'Redis limiter checks', `Redis at ${URL} unreachable (${error instanceof Error ? error.message : String(error)})`)];
  }
  const prefix = `svcbase-bench:${randomBytes(4).toString('hex')}:`;
  const keys = Array.from({ length: KEYS }, (_, i) => `sms:app:138${String(i).padStart(8, '0')}`);
  const server = /redis_version:(\S+)/.exec(await client.info('server'))?.[1] ?? '?';
  const rows: ResultRow[] = [];
  try {
    for (const batch of [1, IN_FLIGHT]) {
      config.log(`redis: limiter checks, ${batch} in flight`);
      const redisSide = side(redisCounterStore({ client, prefix }), keys, batch, 11);
      const memorySide = side(memoryCounterStore(), keys, batch, 11);
      const result = await compare(config, redisSide, memorySide, { clock: 'wall' });
      const perCheck = (n: number) => n * batch;
      rows.push(
        comparisonRow(
          'redis',
          `SMS limit check, 3 windows, 100k numbers: Redis store (server clock), ${batch} in flight`,
          'memoryCounterStore',
          { ...result, ours: perCheck(result.ours), reference: perCheck(result.reference), oursRounds: result.oursRounds.map(perCheck), referenceRounds: result.referenceRounds.map(perCheck) },
          null,
          {
            unit: 'checks/s',
            detail: { inFlight: batch, redisServer: server, ioredis: packageVersion('ioredis'), url: URL.replace(/\/\/[^@]*@/, '//') },
            note: 'wall-clock rates; Redis on loopback on the same machine. The memory store is one process only: the row shows what sharing limits across instances costs',
          },
        ),
      );
    }
  } finally {
    const stream = client.scanStream({ match: `${prefix}*`, count: 1000 }) as AsyncIterable<string[]>;
    for await (const found of stream) if (found.length > 0) await client.del(...found);
    await client.quit();
  }
  return rows;
}
