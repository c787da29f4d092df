import { isAbsolute } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { isSvcError, svcError } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import { workerFile } from '../../core/worker-file.js';
import { BACKGROUND_NICENESS } from '../../core/background-priority.js';
import type { Json } from '../../core/wire-values.js';
import type { FunctionTimer } from '../function-runner.js';
import type { SandboxLimits } from './quickjs-sandbox.js';
import { type SandboxWorkerData, type SentReply, type ToPool, type ToWorker, WORKER_SOURCES, type WireFunction, parseToPool } from './sandbox-protocol.js';
import type { SandboxFunction } from './warm-contexts.js';

/** What the pool does for one invocation's messages (on the main thread). */
export interface SandboxRun {
  call(module: string, method: string, args: unknown[]): Promise<Json>;
  setHeader(headers: Record<string, string>): void;
  log(level: string, message: string): void;
  send(reply: SentReply): void;
  fail(error: Error): void;
  /** The invocation left the queue and became its worker's running one (its time counts from here). */
  started?(): void;
}

/** One invocation as the pool queues it. */
export interface SandboxJob {
  /** The application: each gets its share of the workers. */
  readonly app: string;
  readonly fn: SandboxFunction;
  /** The request as one text (sandbox-request.ts, `sandboxRequestText`): one string crosses to the worker, not a structured clone. */
  readonly requestText: string;
  readonly limits: SandboxLimits;
  /** Past this long running, its worker is terminated and replaced. */
  readonly deadlineMs: number;
  /** Past this long waiting for a worker, the invocation answers `functionBusy` (11221). */
  readonly maxWaitMs: number;
}

export interface SandboxPoolOptions {
  /** Worker threads (default 2). */
  readonly size?: number;
  /** Invocations waiting for a worker, all applications together (default 256); past it 11221 at once. */
  readonly maxQueued?: number;
  /** Invocations of one application waiting for a worker (default 64); past it 11221 at once. */
  readonly maxQueuedPerApp?: number;
  readonly timer: FunctionTimer;
  readonly logger: Logger;
  /** Niceness of the worker threads (default 10, background-priority.ts); ignored with `spawn`. */
  readonly niceness?: number;
  /** Starts a worker (default: the package's functions-sandbox-worker file). */
  readonly spawn?: () => Worker;
}

/** JavaScript heap of each sandbox worker (QuickJS's wasm heap is bounded by the sandbox, not here). */
export const WORKER_RESOURCE_LIMITS = { maxOldGenerationSizeMb: 256, maxYoungGenerationSizeMb: 32, stackSizeMb: 4 } as const;
export const DEFAULT_MAX_QUEUED = 256;
export const DEFAULT_MAX_QUEUED_PER_APP = 64;

interface Job extends SandboxJob {
  readonly id: number;
  readonly run: SandboxRun;
  /** Stops the wait timer (the job left the queue). */
  cancelWait: () => void;
  /** The invocation failed on this side: its worker's later messages are not acted on. */
  failed: boolean;
}

/**
 * Jobs a worker holds at once: the running one and the next, queued in the worker so it starts
 * without waiting for a round trip to the main thread after each invocation.
 */
const JOBS_PER_WORKER = 2;
const NO_WAIT = (): void => {};
/**
 * An application that queued an invocation within the pool's last this-many invocation starts is a
 * neighbour: while it is, no other application takes the last worker not already its own.
 */
export const NEIGHBOUR_STARTS = 64;

interface Slot {
  worker: Worker;
  ready: boolean;
  /** Terminate was asked for: the slot takes no more jobs, and its late messages are ignored. */
  stopping: boolean;
  /** The running job first, then the one the worker starts next (it has sent nothing yet). */
  jobs: Job[];
  /** What this worker was last sent of each keyed function, least recently used first (the worker keeps the same). */
  readonly sources: Map<string, { readonly version: number; readonly source: string }>;
  cancelDeadline: () => void;
}

function defaultSpawn(niceness: number): () => Worker {
  const here = typeof __filename === 'string' && isAbsolute(__filename) ? __filename : fileURLToPath(import.meta.url);
  const file = workerFile(here, 'functions-sandbox-worker');
  if (!file) throw svcError('functionRuntimeMissing', 'the sandbox worker file is missing from this build');
  return () => new Worker(file, { workerData: { resolveFrom: here, niceness } satisfies SandboxWorkerData, resourceLimits: WORKER_RESOURCE_LIMITS });
}

/**
 * The function as this slot's worker needs it: its source only when the worker was not sent this
 * key with this version and text before (the text is compared too: two deployments can share a
 * millisecond; the same string object compares at once). Both sides keep the last `WORKER_SOURCES`
 * keys, touched in the same order (every run message), so they forget the same ones.
 */
function wireFunction(slot: Slot, fn: SandboxFunction): WireFunction {
  if (fn.key === null) return fn;
  const sent = slot.sources.get(fn.key);
  slot.sources.delete(fn.key);
  if (sent && sent.version === fn.version && sent.source === fn.source) {
    slot.sources.set(fn.key, sent);
    return { key: fn.key, version: fn.version };
  }
  slot.sources.set(fn.key, { version: fn.version, source: fn.source });
  if (slot.sources.size > WORKER_SOURCES) slot.sources.delete(slot.sources.keys().next().value as string);
  return fn;
}

/** A module call's failure as the sandbox receives it. */
function coded(error: unknown): { code: number; error: string } {
  if (typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'number') {
    const e = error as { code: number; message?: unknown; error?: unknown };
    return { code: e.code, error: String(e.error ?? e.message ?? 'error') };
  }
  return { code: 11033, error: error instanceof Error ? error.message : String(error) };
}

/**
 * Worker threads running deployed functions, one invocation per worker at a time (the next one
 * waiting in the worker). Each application has its own queue; a free worker takes the next job of
 * the application holding the fewest workers (ties in turn), so one application's burst waits
 * behind itself, not in front of the others. A full queue answers 11221 at once, and so does a job
 * that waited longer than its `maxWaitMs`. A worker whose invocation outlives its deadline (a loop
 * QuickJS's CPU budget did not stop, a module call that never returns) is terminated and replaced;
 * one that dies (or passes its JavaScript heap limit) is replaced too. The job it had not started
 * yet goes back to the front of its queue: no message of it reached the host. Every message from a
 * worker is checked and handled inside a boundary: a malformed one ends that worker, a failure
 * acting on one ends that invocation with its coded error, never the process.
 */
export class SandboxPool {
  private readonly slots: Slot[] = [];
  /** Waiting jobs per application, in turn order (an application served moves to the end). */
  private readonly queues = new Map<string, Job[]>();
  private queued = 0;
  /** Jobs each application has on workers (running or next). */
  private readonly held = new Map<string, number>();
  private readonly spawn: () => Worker;
  private readonly maxQueued: number;
  private readonly maxQueuedPerApp: number;
  private broken: string | null = null;
  private closed = false;
  private nextId = 1;
  /** Invocations started so far, and the count when each application last queued one (its recency). */
  private starts = 0;
  private readonly lastQueued = new Map<string, number>();

  constructor(private readonly options: SandboxPoolOptions) {
    this.spawn = options.spawn ?? defaultSpawn(options.niceness ?? BACKGROUND_NICENESS);
    this.maxQueued = options.maxQueued ?? DEFAULT_MAX_QUEUED;
    this.maxQueuedPerApp = options.maxQueuedPerApp ?? DEFAULT_MAX_QUEUED_PER_APP;
    for (let i = 0; i < (options.size ?? 2); i++) this.slots.push(this.start());
  }

  /** Queues one invocation; `run` hears of its messages and its outcome. */
  run(job: SandboxJob, run: SandboxRun): void {
    if (this.closed) return run.fail(svcError('functionRuntimeMissing', 'the service is closing'));
    if (this.broken) return run.fail(svcError('functionRuntimeMissing', this.broken));
    const own = this.queues.get(job.app);
    if (this.queued >= this.maxQueued) return run.fail(svcError('functionBusy', `${this.queued} invocations wait for a sandbox worker`, 1));
    if ((own?.length ?? 0) >= this.maxQueuedPerApp) return run.fail(svcError('functionBusy', `${own!.length} invocations of this application wait for a sandbox worker`, 1));
    // Every field written out: a spread here makes a slower object, on every invocation.
    const queued: Job = { app: job.app, fn: job.fn, requestText: job.requestText, limits: job.limits, deadlineMs: job.deadlineMs, maxWaitMs: job.maxWaitMs, id: this.nextId++, run, cancelWait: NO_WAIT, failed: false };
    this.lastQueued.set(job.app, this.starts);
    this.enqueue(queued, false);
    this.dispatch();
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const queue of this.queues.values()) for (const job of queue) this.drop(job, svcError('functionRuntimeMissing', 'the service is closing'));
    this.queues.clear();
    this.queued = 0;
    await Promise.all(this.slots.map((slot) => slot.worker.terminate()));
  }

  private enqueue(job: Job, front: boolean): void {
    let queue = this.queues.get(job.app);
    if (!queue) this.queues.set(job.app, (queue = []));
    if (front) queue.unshift(job);
    else queue.push(job);
    this.queued++;
    job.cancelWait = this.options.timer.setTimeout(() => {
      const own = this.queues.get(job.app);
      const at = own ? own.indexOf(job) : -1;
      if (at < 0) return;
      own!.splice(at, 1);
      this.queued--;
      if (own!.length === 0) this.queues.delete(job.app);
      job.run.fail(svcError('functionBusy', `no sandbox worker was free within ${job.maxWaitMs} ms`, 1));
    }, job.maxWaitMs);
  }

  /**
   * The next job to start: of the application holding the fewest workers, ties in turn; with
   * `only`, none unless that application's turn it is. Without `only` (a free worker), an
   * application already running on all the other workers is passed over while another application
   * is a neighbour (`NEIGHBOUR_STARTS`): one application's slow functions never hold every worker
   * while another application is calling, so that one waits for at most its own turn.
   */
  private next(only?: string): Job | undefined {
    let app: string | undefined;
    let fewest = Number.POSITIVE_INFINITY;
    for (const candidate of this.queues.keys()) {
      const held = this.held.get(candidate) ?? 0;
      if (held < fewest && (only !== undefined || this.mayTakeWorker(candidate))) {
        fewest = held;
        app = candidate;
      }
    }
    if (app === undefined || (only !== undefined && app !== only)) return undefined;
    const queue = this.queues.get(app)!;
    const job = queue.shift()!;
    this.queued--;
    // Served: its turn moves to the end.
    this.queues.delete(app);
    if (queue.length > 0) this.queues.set(app, queue);
    job.cancelWait();
    return job;
  }

  /** Whether `app` may start on one more worker: not on the last one while another application is a neighbour. */
  private mayTakeWorker(app: string): boolean {
    if (this.slots.length < 2) return true;
    let running = 0;
    for (const slot of this.slots) if (slot.jobs[0]?.app === app) running++;
    if (running < this.slots.length - 1) return true;
    for (const [other, at] of this.lastQueued) {
      if (this.starts - at >= NEIGHBOUR_STARTS) this.lastQueued.delete(other);
      else if (other !== app) return false;
    }
    return true;
  }

  private drop(job: Job, error: Error): void {
    job.cancelWait();
    job.run.fail(error);
  }

  private hold(app: string, change: number): void {
    const count = (this.held.get(app) ?? 0) + change;
    if (count <= 0) this.held.delete(app);
    else this.held.set(app, count);
  }

  private start(): Slot {
    const worker = this.spawn();
    const slot: Slot = { worker, ready: false, stopping: false, jobs: [], sources: new Map(), cancelDeadline: () => {} };
    worker.unref();
    // The worker sends its messages in batches, in order, as JSON text (cheaper to post than a clone).
    worker.on('message', (text: unknown) => {
      if (slot.stopping) return;
      const batch = parseToPool(text);
      if (!batch) return this.stop(slot, 'the sandbox sent a malformed message');
      for (const message of batch) this.receive(slot, message);
    });
    worker.on('error', (error) => this.options.logger.warn('functions: a sandbox worker failed', { error: String(error) }));
    worker.on('exit', () => {
      if (this.closed) return;
      slot.cancelDeadline();
      const [running, ...notStarted] = slot.jobs.splice(0);
      if (running) {
        this.hold(running.app, -1);
        running.run.fail(svcError('functionFailed', 'function', 'its sandbox was stopped'));
      }
      this.requeue(notStarted);
      const index = this.slots.indexOf(slot);
      if (index >= 0) this.slots[index] = this.start();
      this.dispatch();
    });
    return slot;
  }

  /** Jobs a worker held but never started, back to the front of their queues in their order. */
  private requeue(jobs: readonly Job[]): void {
    for (const job of [...jobs].reverse()) {
      this.hold(job.app, -1);
      this.enqueue(job, true);
    }
  }

  /** Terminates a slot's worker; 'exit' fails its running job and starts a replacement. */
  private stop(slot: Slot, reason: string): void {
    this.options.logger.warn('functions: terminating a sandbox worker', { reason });
    // Termination is asynchronous: until 'exit' the worker may still report 'idle', and a job
    // handed to it then would die with it.
    slot.stopping = true;
    slot.ready = false;
    void slot.worker.terminate();
  }

  private dispatch(): void {
    // Idle workers first, then the places of the next job. A worker's next job is only ever of the
    // application it is running (and only in that application's turn): another application's job
    // waits for a free worker rather than behind a busy one.
    for (const room of [1, JOBS_PER_WORKER]) {
      for (const slot of this.slots) {
        while (slot.ready && !slot.stopping && slot.jobs.length < room) {
          const job = this.next(slot.jobs[0]?.app);
          if (!job) break;
          slot.jobs.push(job);
          this.hold(job.app, 1);
          if (slot.jobs.length === 1) this.begin(slot, job);
          const message: ToWorker = { type: 'run', id: job.id, fn: wireFunction(slot, job.fn), requestText: job.requestText, limits: job.limits };
          slot.worker.postMessage(JSON.stringify(message));
        }
      }
    }
  }

  /** `job` is now its slot's running job: its time starts, and its worker is terminated if it is still running it `deadlineMs` later. */
  private begin(slot: Slot, job: Job): void {
    this.starts++;
    slot.cancelDeadline = this.options.timer.setTimeout(() => {
      if (slot.jobs[0] !== job) return;
      this.stop(slot, `an invocation was still running ${job.deadlineMs} ms after it started`);
    }, job.deadlineMs);
    this.act(job, () => job.run.started?.());
  }

  /** Runs what one message asks of the host for `job`: a throw fails that invocation with its coded error. */
  private act(job: Job, work: () => void): void {
    if (job.failed) return;
    try {
      work();
    } catch (error) {
      job.failed = true;
      job.run.fail(isSvcError(error) ? error : svcError('functionReplyInvalid', 'function', error instanceof Error ? error.message : String(error)));
    }
  }

  private receive(slot: Slot, message: ToPool): void {
    if (slot.stopping) return;
    if (message.type === 'ready') {
      slot.ready = true;
      return this.dispatch();
    }
    if (message.type === 'retire') {
      // It starts none of its queued jobs: they go back to the queue, and 'exit' starts a replacement.
      slot.stopping = true;
      slot.ready = false;
      slot.cancelDeadline();
      this.requeue(slot.jobs.splice(0));
      void slot.worker.terminate();
      return this.dispatch();
    }
    if (message.type === 'broken') {
      this.broken = message.message;
      for (const queue of this.queues.values()) for (const job of queue) this.drop(job, svcError('functionRuntimeMissing', message.message));
      this.queues.clear();
      this.queued = 0;
      return;
    }
    // The worker runs its jobs in order: every message is of the running one.
    const job = slot.jobs[0];
    if (!job || job.id !== message.id) return;
    switch (message.type) {
      case 'call': {
        const answer = (reply: ToWorker) => {
          if (slot.jobs[0] === job && !slot.stopping) slot.worker.postMessage(JSON.stringify(reply));
        };
        // An invocation that failed here makes no more calls: nothing is written after its error.
        if (job.failed) return answer({ type: 'answer', callId: message.callId, answer: { err: { code: 11033, error: 'the invocation has failed' } } });
        Promise.resolve()
          .then(() => job.run.call(message.module, message.method, message.args))
          .then(
            (value) => ({ ok: value }),
            (error: unknown) => ({ err: coded(error) }),
          )
          .then((result) => answer({ type: 'answer', callId: message.callId, answer: result }));
        return;
      }
      case 'setHeader':
        return this.act(job, () => job.run.setHeader(message.headers));
      case 'log':
        return this.act(job, () => job.run.log(message.level, message.message));
      case 'send':
        return this.act(job, () => job.run.send(message.reply));
      case 'fail':
        return this.act(job, () => job.run.fail(message.cpu ? svcError('functionCpuExceeded', 'function', job.limits.cpuTicks) : new Error(message.message)));
      case 'idle': {
        slot.cancelDeadline();
        slot.jobs.shift();
        this.hold(job.app, -1);
        const next = slot.jobs[0];
        if (next) this.begin(slot, next);
        return this.dispatch();
      }
    }
  }
}
