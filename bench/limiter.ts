/**
 * SMS rate-limit checks per second: our sliding-log limiter (memory store, windows 1/min, 5/h,
 * 10/day) against rate-limiter-flexible's RateLimiterMemory with the same three windows, combined
 * with its RateLimiterUnion (its own way of checking several limits at once).
 *
 * Both sides replay the same trace: 100k phone numbers, a check every 100 ms of simulated time,
 * a quarter of the checks being a quick retry of a number seen a few seconds earlier (refused by
 * the 1/min window), the rest a random number (allowed unless its hourly or daily budget is spent).
 * Our limiter reads a fake Clock; rate-limiter-flexible reads Date.now, which is pointed at the
 * same simulated time while this group runs.
 */
import { RateLimiterMemory, RateLimiterUnion } from 'rate-limiter-flexible';
import { FakeClock } from '../src/core/clock.js';
import { memoryCounterStore } from '../src/counters/memory-counter-store.js';
import { DAY_MS, HOUR_MS, MINUTE_MS, createRateLimiter } from '../src/counters/rate-limiter.js';
import type { RateWindow } from '../src/counters/port.js';
import { type BenchConfig, compare, prng } from './harness.js';
import { type ResultRow, comparisonRow } from './report.js';

const WINDOWS: readonly RateWindow[] = [
  { limit: 1, windowMs: MINUTE_MS },
  { limit: 5, windowMs: HOUR_MS },
  { limit: 10, windowMs: DAY_MS },
];
const KEYS = 100_000;
const TRACE = 1 << 20;
const STEP_MS = 100;
const START = Date.UTC(2026, 0, 1);

/** Indices into the key table: 75% random numbers, 25% a retry of one of the last 64 checks. */
function buildTrace(): Uint32Array {
  const random = prng(8);
  const trace = new Uint32Array(TRACE);
  for (let i = 0; i < TRACE; i++) {
    trace[i] = i > 64 && random() < 0.25 ? trace[i - 1 - Math.floor(random() * 64)]! : Math.floor(random() * KEYS);
  }
  return trace;
}

interface Tally {
  allowed: number;
  refused: number;
}

export async function run(config: BenchConfig): Promise<ResultRow[]> {
  const keys = Array.from({ length: KEYS }, (_, i) => `sms:app:138${String(i).padStart(8, '0')}`);
  const trace = buildTrace();

  const clock = new FakeClock(START);
  const limiter = createRateLimiter({ store: memoryCounterStore(), clock });
  const oursTally: Tally = { allowed: 0, refused: 0 };
  let oursAt = 0;
  const ours = () => {
    clock.advance(STEP_MS);
    const key = keys[trace[oursAt++ & (TRACE - 1)]!]!;
    return limiter.consume(key, WINDOWS).then((r) => (r.allowed ? oursTally.allowed++ : oursTally.refused++));
  };

  const union = new RateLimiterUnion(
    new RateLimiterMemory({ keyPrefix: 'minute', points: 1, duration: 60 }),
    new RateLimiterMemory({ keyPrefix: 'hour', points: 5, duration: 3600 }),
    new RateLimiterMemory({ keyPrefix: 'day', points: 10, duration: 86400 }),
  );
  const refTally: Tally = { allowed: 0, refused: 0 };
  let refAt = 0;
  let simNow = START;
  const reference = () => {
    simNow += STEP_MS;
    const key = keys[trace[refAt++ & (TRACE - 1)]!]!;
    return union.consume(key).then(
      () => refTally.allowed++,
      () => refTally.refused++,
    );
  };

  config.log('limiter: memory sliding windows vs rate-limiter-flexible');
  const realNow = Date.now;
  Date.now = () => simNow;
  let result;
  try {
    result = await compare(config, ours, reference);
  } finally {
    Date.now = realNow;
  }
  const share = (t: Tally) => Math.round((t.allowed / Math.max(1, t.allowed + t.refused)) * 1000) / 1000;
  return [
    comparisonRow('limiter', 'SMS limit check, 3 windows (1/min, 5/h, 10/day), 100k numbers', 'rate-limiter-flexible', result, 1, {
      unit: 'checks/s',
      detail: {
        oursAllowedShare: share(oursTally),
        referenceAllowedShare: share(refTally),
        oursChecks: oursTally.allowed + oursTally.refused,
        referenceChecks: refTally.allowed + refTally.refused,
      },
      note: 'rate-limiter-flexible counts fixed windows and also counts refused attempts (RateLimiterUnion); ours are exact sliding windows that record only allowed hits',
    }),
  ];
}
