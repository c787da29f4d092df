import type { Worker } from 'node:worker_threads';
import { retryError, svcError } from '../../core/errors.js';
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
}

interface Job {
  readonly request: ReadRequest;
  readonly budgetMs: number;
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

type Reply = { ready: true } | { id: number; value: ReadResult } | { id: number; error: string; overBudget: boolean };

/**
 * A pool of reader workers (worker_threads), each with its own read-only connection. A read runs on
 * an idle worker, which stops it at its budget (`svc_tick()` per scanned row); a worker that does not
 * answer within budget + grace (stuck in native code) is terminated and replaced. Terminated workers
 * still finishing a statement count against the pool, so threads stay bounded (at most twice `size`);
 * with every worker busy, at most `maxQueued` reads wait and later ones get 11091.
 */
export class ReaderPool {
  private readonly slots = new Set<Slot>();
  private readonly queue: Job[] = [];
  private zombies = 0;
  private nextId = 1;
  private closed = false;

  constructor(private readonly options: ReaderPoolOptions) {}

  /** Threads alive: serving, starting or terminated but still running (tests, diagnostics). */
  get threads(): number {
    return this.slots.size + this.zombies;
  }

  read(request: ReadRequest, budgetMs: number): Promise<ReadResult> {
    if (this.closed) return Promise.reject(new Error('[svcbase] [sqlite] the storage adapter is closed'));
    const idle = [...this.slots].some((s) => s.ready && !s.job);
    if (!idle && this.queue.length >= this.options.maxQueued) return Promise.reject(retryError('queryBusy', 1000));
    return new Promise<ReadResult>((resolve, reject) => {
      this.queue.push({ request, budgetMs, resolve, reject });
      this.grow();
      this.dispatch();
    });
  }

  /** Terminates every worker; waiting reads fail. */
  async close(): Promise<void> {
    this.closed = true;
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

  private dispatch(): void {
    for (const slot of this.slots) {
      if (!slot.ready || slot.job) continue;
      const job = this.queue.shift();
      if (!job) return;
      slot.job = job;
      slot.timer = setTimeout(() => this.kill(slot), Math.min(job.budgetMs + this.options.graceMs, MAX_TIMER_MS));
      slot.worker.postMessage({ id: this.nextId++, request: job.request, budgetMs: job.budgetMs });
    }
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
