import type { Worker } from 'node:worker_threads';
import { type Clock, systemClock } from '../../core/clock.js';
import { retryError, svcError } from '../../core/errors.js';
import { type Ticker, intervalTicker } from '../../core/ticker.js';
import type { ReadRequest, ReadResult } from './guarded-reader.js';
import type { ReaderWorkerData, SpawnReader } from './reader-entry.js';

export interface ReaderPoolOptions {
  readonly spawn: SpawnReader;
  readonly data: ReaderWorkerData;
  /** Workers serving reads at once. */
  readonly size: number;
  /** Reads waiting for a worker beyond which new reads are refused with 11091. */
  readonly maxQueued: number;
  /** How long past its budget a read may keep its worker before the worker is terminated. */
  readonly graceMs: number;
  /** Clock of the reads' budgets, counted from submission (default the system clock; tests pass a FakeClock). */
  readonly clock?: Clock;
  /** Runs the sweep of waiting reads while any wait (default `setInterval`; tests pass a manual one). */
  readonly ticker?: Ticker;
}

interface Job {
  readonly request: ReadRequest;
  readonly budgetMs: number;
  /** When the budget ends (clock ms): the read was submitted at `deadline - budgetMs`. */
  readonly deadline: number;
  resolve(value: ReadResult): void;
  reject(error: Error): void;
}

interface Slot {
  readonly worker: Worker;
  ready: boolean;
  job: Job | null;
  timer: ReturnType<typeof setTimeout> | null;
}

/** setTimeout's largest delay (a larger one fires at once). */
const MAX_TIMER_MS = 2_147_483_647;

/** How often waiting reads are checked for a budget that ran out, ms (a sweep only while some wait). */
export const QUEUE_SWEEP_MS = 50;

/** Whether a waiting read's budget ran out (a read of budget 0 taken at once still starts, and answers 11090). */
const waitedOut = (job: Job, now: number): boolean => job.deadline < now;

/** The answer of a read whose budget ran out before a worker was free: 11091, retry after 1 s. */
const waitedOutError = () => retryError('queryBusy', 1000);

type Reply = { ready: true } | { id: number; value: ReadResult } | { id: number; error: string; overBudget: boolean };

/**
 * A pool of reader workers (worker_threads), each with its own read-only connection. A read runs on
 * an idle worker, which stops it at its budget (`svc_tick()` per scanned row); a worker that does not
 * answer within budget + grace (stuck in native code) is terminated and replaced. Terminated workers
 * still finishing a statement count against the pool, so threads stay bounded (at most twice `size`);
 * with every worker busy, at most `maxQueued` reads wait and later ones get 11091.
 *
 * A read's budget counts from its submission, not from when a worker takes it: a worker gets what is
 * left of it, and a read still waiting when its budget runs out answers 11091 (HTTP 429) without
 * ever running, found by a sweep every `QUEUE_SWEEP_MS` while reads wait or by the dispatch that
 * would have started it (D234). So a flood of slow reads delays another read by at most its own
 * budget, never by the flood's length.
 */
export class ReaderPool {
  private readonly slots = new Set<Slot>();
  private readonly queue: Job[] = [];
  private zombies = 0;
  private nextId = 1;
  private closed = false;
  private readonly clock: Clock;
  private readonly ticker: Ticker;
  /** Stops the sweep of waiting reads; null while none wait. */
  private stopSweep: (() => void) | null = null;

  constructor(private readonly options: ReaderPoolOptions) {
    this.clock = options.clock ?? systemClock;
    this.ticker = options.ticker ?? intervalTicker;
  }

  /** Threads alive: serving, starting or terminated but still running (tests, diagnostics). */
  get threads(): number {
    return this.slots.size + this.zombies;
  }

  read(request: ReadRequest, budgetMs: number): Promise<ReadResult> {
    if (this.closed) return Promise.reject(new Error('[svcbase] [sqlite] the storage adapter is closed'));
    const now = this.clock.now();
    this.expire(now);
    const idle = [...this.slots].some((s) => s.ready && !s.job);
    if (!idle && this.queue.length >= this.options.maxQueued) return Promise.reject(retryError('queryBusy', 1000));
    return new Promise<ReadResult>((resolve, reject) => {
      this.queue.push({ request, budgetMs, deadline: now + budgetMs, resolve, reject });
      this.grow();
      this.dispatch(now);
      if (this.queue.length > 0) this.stopSweep ??= this.ticker.every(QUEUE_SWEEP_MS, () => this.sweep());
    });
  }

  /** The sweep: expires waiting reads, and stops once none wait. */
  private sweep(): void {
    this.expire(this.clock.now());
    if (this.queue.length === 0) this.endSweep();
  }

  /** Answers 11091 to every waiting read whose budget ran out (they leave the queue unrun). */
  private expire(now: number): void {
    for (let i = 0; i < this.queue.length; ) {
      const job = this.queue[i]!;
      if (!waitedOut(job, now)) i++;
      else {
        this.queue.splice(i, 1);
        job.reject(waitedOutError());
      }
    }
  }

  private endSweep(): void {
    this.stopSweep?.();
    this.stopSweep = null;
  }

  /** Terminates every worker; waiting reads fail. */
  async close(): Promise<void> {
    this.closed = true;
    this.endSweep();
    for (const job of this.queue.splice(0)) job.reject(new Error('[svcbase] [sqlite] the storage adapter is closed'));
    const stopping = [...this.slots].map((slot) => {
      this.finish(slot);
      return slot.worker.terminate();
    });
    this.slots.clear();
    await Promise.all(stopping);
  }

  /** Starts a worker when reads wait, none is idle or starting, and the thread bound allows. */
  private grow(): void {
    const free = [...this.slots].filter((s) => !s.job).length;
    if (free >= this.queue.length || this.slots.size >= this.options.size) return;
    if (this.threads >= this.options.size * 2) return;
    const worker = this.options.spawn(this.options.data);
    worker.unref();
    const slot: Slot = { worker, ready: false, job: null, timer: null };
    this.slots.add(slot);
    worker.on('message', (reply: Reply) => this.onReply(slot, reply));
    worker.on('error', (error) => this.retire(slot, error));
    worker.on('exit', () => this.retire(slot, new Error('[svcbase] [sqlite] a reader worker exited')));
  }

  /** Starts waiting reads on idle workers, each with what is left of its budget; a read with none left answers 11091 unrun. */
  private dispatch(now = this.clock.now()): void {
    for (const slot of this.slots) {
      if (!slot.ready || slot.job) continue;
      const job = this.next(now);
      if (!job) break;
      const leftMs = job.deadline - now;
      slot.job = job;
      slot.timer = setTimeout(() => this.kill(slot), Math.min(leftMs + this.options.graceMs, MAX_TIMER_MS));
      slot.worker.postMessage({ id: this.nextId++, request: job.request, budgetMs: leftMs });
    }
    if (this.queue.length === 0) this.endSweep();
  }

  /** The oldest waiting read with budget left; those without any on the way answer 11091. */
  private next(now: number): Job | undefined {
    for (let job = this.queue.shift(); job; job = this.queue.shift()) {
      if (!waitedOut(job, now)) return job;
      job.reject(waitedOutError());
    }
    return undefined;
  }

  private onReply(slot: Slot, reply: Reply): void {
    if ('ready' in reply) slot.ready = true;
    else {
      const job = this.finish(slot);
      if (job) {
        if ('value' in reply) job.resolve(reply.value);
        else job.reject(reply.overBudget ? svcError('queryOverBudget', job.budgetMs) : new Error(`[svcbase] [sqlite] ${reply.error}`));
      }
    }
    this.dispatch();
  }

  /** The worker overran budget + grace: answer 11090 now, terminate it, count it until it exits. */
  private kill(slot: Slot): void {
    const job = this.finish(slot);
    this.slots.delete(slot);
    this.zombies++;
    slot.worker.removeAllListeners('exit');
    slot.worker.once('exit', () => {
      this.zombies--;
      this.grow();
      this.dispatch();
    });
    void slot.worker.terminate();
    job?.reject(svcError('queryOverBudget', job.budgetMs));
    this.grow();
    this.dispatch();
  }

  /** A worker failed or exited on its own: its read fails, a later read starts a new one. */
  private retire(slot: Slot, error: Error): void {
    if (!this.slots.delete(slot)) return;
    this.finish(slot)?.reject(error);
    // A worker that never started (a missing file, a failing driver) would fail again at once.
    if (!slot.ready) for (const job of this.queue.splice(0)) job.reject(error);
    if (!this.closed) {
      this.grow();
      this.dispatch();
    }
  }

  private finish(slot: Slot): Job | null {
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = null;
    const job = slot.job;
    slot.job = null;
    return job;
  }
}
