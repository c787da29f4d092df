import { isAbsolute } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { svcError } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import { workerFile } from '../../core/worker-file.js';
import type { Json } from '../../core/wire-values.js';
import type { FunctionTimer } from '../function-runner.js';
import type { SandboxLimits } from './quickjs-sandbox.js';
import type { SentReply, ToPool, ToWorker, WireFunction } from './sandbox-protocol.js';
import type { SandboxFunction } from './warm-contexts.js';

/** What the pool does for one invocation's messages (on the main thread). */
export interface SandboxRun {
  call(module: string, method: string, args: unknown[]): Promise<Json>;
  setHeader(headers: Record<string, string>): void;
  log(level: string, message: string): void;
  send(reply: SentReply): void;
  fail(error: Error): void;
}

export interface SandboxPoolOptions {
  /** Worker threads (default 2). */
  readonly size?: number;
  readonly timer: FunctionTimer;
  readonly logger: Logger;
  /** Starts a worker (default: the package's functions-sandbox-worker file). */
  readonly spawn?: () => Worker;
}

interface Job {
  readonly id: number;
  /** Past this long the worker is terminated and replaced. */
  readonly deadlineMs: number;
  readonly fn: SandboxFunction;
  readonly limits: SandboxLimits;
  /** The request as text: one string crosses to the worker, not a structured clone. */
  readonly requestText: string;
  readonly run: SandboxRun;
}

/**
 * Jobs a worker holds at once: the running one and the next, queued in the worker so it starts
 * without waiting for a round trip to the main thread after each invocation.
 */
const JOBS_PER_WORKER = 2;

interface Slot {
  worker: Worker;
  ready: boolean;
  /** Terminate was asked for: the slot takes no more jobs, and its late messages are ignored. */
  stopping: boolean;
  /** The running job first, then the one the worker starts next (it has sent nothing yet). */
  jobs: Job[];
  /** What this worker was last sent of each keyed function. */
  readonly sources: Map<string, { readonly version: number; readonly source: string }>;
  cancelDeadline: () => void;
}

function defaultSpawn(): () => Worker {
  const here = typeof __filename === 'string' && isAbsolute(__filename) ? __filename : fileURLToPath(import.meta.url);
  const file = workerFile(here, 'functions-sandbox-worker');
  if (!file) throw svcError('functionRuntimeMissing', 'the sandbox worker file is missing from this build');
  return () => new Worker(file, { workerData: { resolveFrom: here } });
}

/**
 * The function as this slot's worker needs it: its source only when the worker was not sent this
 * key with this version and text before (the text is compared too: two deployments can share a
 * millisecond; the same string object compares at once).
 */
function wireFunction(slot: Slot, fn: SandboxFunction): WireFunction {
  if (fn.key === null) return fn;
  const sent = slot.sources.get(fn.key);
  if (sent && sent.version === fn.version && sent.source === fn.source) return { key: fn.key, version: fn.version };
  slot.sources.set(fn.key, { version: fn.version, source: fn.source });
  return fn;
}

/**
 * Worker threads running deployed functions, one invocation per worker at a time (the next one
 * waiting in the worker), queued in arrival order. A worker whose invocation outlives its deadline
 * (a loop QuickJS's CPU budget did not stop, a module call that never returns) is terminated and
 * replaced; one that dies is replaced too. The job it had not started yet goes back to the queue:
 * the worker ignores nothing of it, and no message of it reached the host.
 */
export class SandboxPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private readonly spawn: () => Worker;
  private broken: string | null = null;
  private closed = false;
  private nextId = 1;

  constructor(private readonly options: SandboxPoolOptions) {
    this.spawn = options.spawn ?? defaultSpawn();
    for (let i = 0; i < (options.size ?? 2); i++) this.slots.push(this.start());
  }

  /**
   * Queues one invocation of `fn` with the request's text (`sandboxRequestText`) under `limits`; a
   * worker still busy with it after `deadlineMs` is terminated and replaced.
   */
  run(fn: SandboxFunction, requestText: string, limits: SandboxLimits, deadlineMs: number, run: SandboxRun): void {
    if (this.closed) return run.fail(svcError('functionRuntimeMissing', 'the service is closing'));
    if (this.broken) return run.fail(svcError('functionRuntimeMissing', this.broken));
    this.queue.push({ id: this.nextId++, deadlineMs, fn, limits, requestText, run });
    this.dispatch();
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.run.fail(svcError('functionRuntimeMissing', 'the service is closing'));
    await Promise.all(this.slots.map((slot) => slot.worker.terminate()));
  }

  private start(): Slot {
    const worker = this.spawn();
    const slot: Slot = { worker, ready: false, stopping: false, jobs: [], sources: new Map(), cancelDeadline: () => {} };
    worker.unref();
    // The worker sends its messages in batches, in order, as JSON text (cheaper to post than a clone).
    worker.on('message', (text: string) => {
      for (const message of JSON.parse(text) as ToPool[]) this.receive(slot, message);
    });
    worker.on('error', (error) => this.options.logger.warn('functions: a sandbox worker failed', { error: String(error) }));
    worker.on('exit', () => {
      if (this.closed) return;
      slot.cancelDeadline();
      const [running, ...notStarted] = slot.jobs;
      running?.run.fail(svcError('functionFailed', 'function', 'its sandbox was stopped'));
      this.queue.unshift(...notStarted);
      const index = this.slots.indexOf(slot);
      if (index >= 0) this.slots[index] = this.start();
      this.dispatch();
    });
    return slot;
  }

  private dispatch(): void {
    for (const slot of this.slots) {
      while (slot.ready && slot.jobs.length < JOBS_PER_WORKER && this.queue.length > 0) {
        const job = this.queue.shift()!;
        slot.jobs.push(job);
        if (slot.jobs.length === 1) this.armDeadline(slot, job);
        const message: ToWorker = { type: 'run', id: job.id, fn: wireFunction(slot, job.fn), requestText: job.requestText, limits: job.limits };
        slot.worker.postMessage(JSON.stringify(message));
      }
    }
  }

  /** Terminates the slot's worker if `job` is still its running job `deadlineMs` after it started. */
  private armDeadline(slot: Slot, job: Job): void {
    slot.cancelDeadline = this.options.timer.setTimeout(() => {
      if (slot.jobs[0] !== job) return;
      this.options.logger.warn('functions: terminating a sandbox past its deadline', { deadlineMs: job.deadlineMs });
      // Termination is asynchronous: until 'exit' the worker may still report 'idle', and a job
      // handed to it then would die with it.
      slot.stopping = true;
      slot.ready = false;
      void slot.worker.terminate();
    }, job.deadlineMs);
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
      this.queue.unshift(...slot.jobs.splice(0));
      void slot.worker.terminate();
      return this.dispatch();
    }
    if (message.type === 'broken') {
      this.broken = message.message;
      for (const job of this.queue.splice(0)) job.run.fail(svcError('functionRuntimeMissing', message.message));
      return;
    }
    // The worker runs its jobs in order: every message is of the running one.
    const job = slot.jobs[0];
    if (!job || job.id !== message.id) return;
    switch (message.type) {
      case 'call':
        job.run.call(message.module, message.method, message.args).then(
          (value) => ({ ok: value }),
          (error: unknown) => ({ err: coded(error) }),
        ).then((answer) => {
          const reply: ToWorker = { type: 'answer', callId: message.callId, answer };
          if (slot.jobs[0] === job) slot.worker.postMessage(JSON.stringify(reply));
        });
        return;
      case 'setHeader':
        return job.run.setHeader(message.headers);
      case 'log':
        return job.run.log(message.level, message.message);
      case 'send':
        return job.run.send(message.reply);
      case 'fail':
        return job.run.fail(message.cpu ? svcError('functionCpuExceeded', 'function', job.limits.cpuTicks) : new Error(message.message));
      case 'idle': {
        slot.cancelDeadline();
        slot.jobs.shift();
        const next = slot.jobs[0];
        if (next) this.armDeadline(slot, next);
        return this.dispatch();
      }
    }
  }
}

function coded(error: unknown): { code: number; error: string } {
  if (typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'number') {
    const e = error as { code: number; message?: unknown; error?: unknown };
    return { code: e.code, error: String(e.error ?? e.message ?? 'error') };
  }
  return { code: 11033, error: error instanceof Error ? error.message : String(error) };
}
