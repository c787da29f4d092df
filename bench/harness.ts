/**
 * The shared benchmark harness: timing loops bounded in count and time, interleaved paired rounds
 * with medians. Result rows and the table live in bench/report.ts.
 *
 * Method (docs/performance.md): every comparison forces one full GC, warms both sides up, then runs
 * `rounds` rounds; each round measures both sides back to back, alternating which goes first (ABBA).
 * A side's figure is the median of its rounds; the ratio is the median of the per-round ratios, so
 * a burst of noise from a neighbour on this shared machine hits one pair, not one side. In-process
 * rates are per second of this process's CPU time (time the scheduler gives to other processes
 * does not count); the REST group, which spans processes, uses wall-clock time.
 */
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Where a benchmark group runs: quick mode is a seconds-long smoke run. */
export interface BenchConfig {
  readonly quick: boolean;
  /** Paired rounds per comparison. */
  readonly rounds: number;
  /** Time budget of one side in one round, ms. */
  readonly roundMs: number;
  /** Warm-up budget per side, ms. */
  readonly warmupMs: number;
  /** Hard cap on operations in one timed run (every loop is bounded in count and time). */
  readonly maxOps: number;
  /** Reports progress lines (stderr). */
  readonly log: (line: string) => void;
}

export function benchConfig(quick: boolean, log: (line: string) => void = () => {}): BenchConfig {
  return quick
    ? { quick, rounds: 3, roundMs: 40, warmupMs: 100, maxOps: 5_000_000, log }
    : { quick, rounds: 11, roundMs: 200, warmupMs: 300, maxOps: 50_000_000, log };
}

/** A workload side: synchronous or returning a promise. Its result is kept so it is not optimised away. */
export type Op = () => unknown;

let sink: unknown;
/** The last result of any measured call (read it to keep the optimiser honest). */
export function blackhole(): unknown {
  return sink;
}

let gcFn: (() => void) | undefined;
/** Forces a full GC when possible (`--expose-gc`, else enabled at runtime). */
export function collectGarbage(): void {
  if (!gcFn) {
    const global = globalThis as { gc?: () => void };
    if (typeof global.gc === 'function') gcFn = global.gc;
    else {
      setFlagsFromString('--expose-gc');
      gcFn = runInNewContext('gc') as () => void;
    }
  }
  gcFn();
}

function isPromise(v: unknown): v is Promise<unknown> {
  return typeof v === 'object' && v !== null && typeof (v as { then?: unknown }).then === 'function';
}

/** One timed run: calls per second of wall-clock time and per second of this process's CPU time. */
export interface Rate {
  readonly wall: number;
  readonly cpu: number;
}

function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/**
 * Runs `op` for about `budgetMs` of wall-clock time (never more than `maxOps` calls) and returns its
 * rates. Calls are made in chunks sized so the clocks are read about once per millisecond.
 *
 * The CPU rate divides by the CPU time this process used (all its threads: GC and SQLite work
 * included), so time the scheduler gives to other processes on a shared machine does not count;
 * waits for I/O do not count either.
 */
export async function measureRate(op: Op, budgetMs: number, maxOps: number): Promise<Rate> {
  const first = op();
  const isAsync = isPromise(first);
  if (isAsync) sink = await first;
  else sink = first;
  let done = 0;
  let chunk = 1;
  const cpuStart = cpuMs();
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < budgetMs && done < maxOps) {
    const n = Math.min(chunk, maxOps - done);
    const t0 = performance.now();
    if (isAsync) for (let i = 0; i < n; i++) sink = await op();
    else for (let i = 0; i < n; i++) sink = op();
    done += n;
    const now = performance.now();
    elapsed = now - start;
    const took = now - t0;
    if (took < 0.5 && chunk < 1 << 20) chunk *= 2;
    else if (took > 4 && chunk > 1) chunk = Math.max(1, chunk >> 1);
  }
  const cpu = Math.max(cpuMs() - cpuStart, 0.001);
  return { wall: (done / elapsed) * 1000, cpu: (done / cpu) * 1000 };
}

/** Calls per second of wall-clock time (see {@link measureRate}). */
export async function opsPerSecond(op: Op, budgetMs: number, maxOps: number): Promise<number> {
  return (await measureRate(op, budgetMs, maxOps)).wall;
}

export function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** (max - min) / median: how noisy one side's rounds were. */
export function spread(values: readonly number[]): number {
  const m = median(values);
  return m === 0 ? 0 : (Math.max(...values) - Math.min(...values)) / m;
}

export interface Comparison {
  readonly ours: number;
  readonly reference: number;
  readonly ratio: number;
  readonly oursRounds: readonly number[];
  readonly referenceRounds: readonly number[];
  /** The same rounds by wall-clock time (informational). */
  readonly oursWall: number;
  readonly referenceWall: number;
  readonly wallRatio: number;
}

/** Which clock a comparison divides by: this process's CPU time (default) or wall-clock time. */
export type RateClock = 'cpu' | 'wall';

/**
 * Measures two sides in interleaved paired rounds after a warm-up of each. Sides run alternately
 * first (ABBA) to cancel drift. Rates are per CPU second of this process unless `clock: 'wall'`.
 */
export async function compare(
  config: BenchConfig,
  ours: Op,
  reference: Op,
  options: { roundMs?: number; rounds?: number; clock?: RateClock } = {},
): Promise<Comparison> {
  const roundMs = options.roundMs ?? config.roundMs;
  const rounds = options.rounds ?? config.rounds;
  const clock = options.clock ?? 'cpu';
  // One full GC before the warm-up, none between rounds: a forced full GC shrinks V8's young
  // generation, and the next ~100 ms of an allocating side then pay for extra scavenges (measured:
  // the storage adapter's count ran 2x slower right after gc(), raw SQLite not at all).
  collectGarbage();
  await measureRate(ours, config.warmupMs, config.maxOps);
  await measureRate(reference, config.warmupMs, config.maxOps);
  const oursRates: Rate[] = [];
  const referenceRates: Rate[] = [];
  for (let round = 0; round < rounds; round++) {
    const pair: Array<[Op, Rate[]]> = [
      [ours, oursRates],
      [reference, referenceRates],
    ];
    if (round % 2 === 1) pair.reverse();
    for (const [op, into] of pair) into.push(await measureRate(op, roundMs, config.maxOps));
  }
  const pick = (rates: readonly Rate[], c: RateClock) => rates.map((r) => r[c]);
  const ratioOf = (c: RateClock) => median(oursRates.map((r, i) => r[c] / referenceRates[i]![c]));
  return {
    ours: median(pick(oursRates, clock)),
    reference: median(pick(referenceRates, clock)),
    ratio: ratioOf(clock),
    oursRounds: pick(oursRates, clock),
    referenceRounds: pick(referenceRates, clock),
    oursWall: median(pick(oursRates, 'wall')),
    referenceWall: median(pick(referenceRates, 'wall')),
    wallRatio: ratioOf('wall'),
  };
}

/**
 * Measures several sides in interleaved rounds (the order rotates every round), e.g. one workload
 * on tables of several sizes. Returns each side's per-round rates by `clock`.
 */
export async function interleave(config: BenchConfig, ops: readonly Op[], clock: RateClock = 'cpu'): Promise<number[][]> {
  collectGarbage();
  for (const op of ops) await measureRate(op, config.warmupMs, config.maxOps);
  const rounds: number[][] = ops.map(() => []);
  for (let round = 0; round < config.rounds; round++) {
    for (let k = 0; k < ops.length; k++) {
      const i = (k + round) % ops.length;
      rounds[i]!.push((await measureRate(ops[i]!, config.roundMs, config.maxOps))[clock]);
    }
  }
  return rounds;
}

export function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
}

/** Deterministic pseudo-random numbers in [0, 1) (mulberry32): data sets are identical run to run. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

