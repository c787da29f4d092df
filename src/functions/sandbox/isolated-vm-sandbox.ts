import { createHash, randomBytes } from 'node:crypto';
import type { Logger } from '../../core/logger.js';
import { HeldHost, deliverHeld } from './inline-sandbox.js';
import { InlineBackoff } from './inline-backoff.js';
import { BRIDGED, HASHES, type SandboxLimits } from './quickjs-sandbox.js';
import type { SandboxRun } from './sandbox-pool.js';
import { SANDBOX_PRELUDE } from './sandbox-prelude.js';
import { replyOfText } from './sandbox-protocol.js';
import type { SandboxRequest } from './sandbox-request.js';
import type { SandboxFunction } from './warm-contexts.js';

/**
 * The parts of isolated-vm (an optional peer, loaded at run time) this sandbox uses: an isolate (a
 * V8 heap of its own, capped), its contexts, references into them, and host callbacks they may call.
 */
export interface IsolatedVm {
  readonly Isolate: new (options: { readonly memoryLimit: number }) => IvmIsolate;
  readonly Callback: new (fn: (...args: string[]) => string | undefined) => unknown;
}

export interface IvmIsolate {
  readonly isDisposed: boolean;
  createContextSync(): IvmContext;
  getHeapStatisticsSync(): { readonly used_heap_size: number; readonly externally_allocated_size: number };
  dispose(): void;
}

export interface IvmContext {
  readonly global: IvmReference;
  evalSync(code: string, options?: { readonly timeout?: number; readonly filename?: string; readonly reference?: boolean }): unknown;
  release(): void;
}

export interface IvmReference {
  setSync(key: string, value: unknown): void;
  applySync(receiver: undefined, args: readonly unknown[], options?: { readonly timeout?: number }): unknown;
  release(): void;
}

/** The isolate's heap cap, in MiB: past it isolated-vm disposes the isolate mid-run (a trap). */
const ISOLATE_MEMORY_MB = 64;
/** After an attempt, past this much heap in use every idle context is dropped with the isolate. */
const RENEW_AT_BYTES = 40 * 1024 * 1024;
/**
 * Wall time of one attempt on a warm context, in ms (isolated-vm's `timeout`, on a thread of its
 * own): V8 runs a trivial function in a few microseconds, and a longer one moves to a worker.
 */
const RUN_TIMEOUT_MS = 2;
/** Wall time of an attempt that first loads a new context: the prelude (about 0.3 ms), the source's top level and the run. */
const LOAD_TIMEOUT_MS = 10;
const RUN_OPTIONS = { timeout: RUN_TIMEOUT_MS } as const;
const LOAD_OPTIONS = { timeout: LOAD_TIMEOUT_MS } as const;
/** An attempt that held the thread longer than this (a builtin V8 does not interrupt) is a trap. */
const LONG_ATTEMPT_MS = 50;
/** Heap an attempt may add and still count (a larger run goes to a worker, where the function's own cap applies). */
const INLINE_GROWTH_BYTES = 8 * 1024 * 1024;
/**
 * The heap is measured (about 2 µs) after an attempt that loaded a context, ran this long, or is
 * the 16th since the last measure; growth between measures counts against the attempt that finds it.
 */
const MEASURE_AFTER_MS = 0.1;
const MEASURE_EVERY_ATTEMPTS = 16;
/**
 * Applications with a smaller CPU budget (in QuickJS interrupt checks) run on the workers: V8's work
 * in one attempt's timeout can be more than such a budget allows there (a check is about 0.3 ms of
 * QuickJS's work here; V8 runs the same code 10-60x faster).
 */
const MIN_CPU_TICKS = 200;
/** Sources longer than this never run here. */
const MAX_INLINE_SOURCE = 64 * 1024;
/** Idle contexts kept, least recently used dropped first. */
const CONTEXTS = 64;
/** New contexts may be made at most once per this many attempts, once the first `CONTEXTS` are spent. */
const ATTEMPTS_PER_NEW_CONTEXT = 128;
/** Traps (attempts past `LONG_ATTEMPT_MS` or at the isolate's cap) allowed before inline runs pause; one more per this many calls. */
const TRAP_BUDGET = 8;
const CALLS_PER_TRAP = 4096;
/**
 * Run in every context before the prelude. The host's callbacks answer text only: 'v' and a JSON
 * value, or 'e' and a message the shim makes an Error of here, so no host object (nor an error's
 * host stack) ever enters the isolate. An asynchronous call (a module, a timer) marks the attempt
 * moved and never settles. Globals QuickJS lacks and that could run code or block outside an
 * attempt's timeout (shared memory, WebAssembly's background compiles, finalizers) are removed.
 */
const SHIM = String.raw`
(function (g) {
  const sync = g.__ivmSync, moved = g.__ivmMoved, respond = g.__ivmRespond, fail = g.__ivmFail, S = String, E = Error;
  for (const name of ['__ivmSync', '__ivmMoved', '__ivmRespond', '__ivmFail', 'SharedArrayBuffer', 'Atomics', 'WebAssembly', 'FinalizationRegistry', 'WeakRef']) delete g[name];
  g.__hostSync = (kind, args) => { const a = sync(S(kind), S(args)); return a[0] === 'v' ? a.slice(1) : new E(a.slice(1)); };
  g.__host = () => { moved(); return new Promise(() => {}); };
  g.__respond = (text) => { respond(S(text)); };
  g.__fail = (text) => { fail(S(text)); };
})(globalThis);
`;

/** One function's context: its prelude's `start`, the source's version, and the attempt it is serving. */
interface IvmFunctionContext {
  readonly version: number;
  readonly source: string;
  readonly context: IvmContext;
  readonly start: IvmReference;
  /** The attempt running in it (its callbacks report there), else null. */
  readonly slot: { current: Attempt | null };
}

/** One attempt as a context's callbacks see it. */
interface Attempt {
  readonly held: HeldHost;
  readonly request: SandboxRequest;
}

/**
 * Warm invocations of deployed functions on the main thread in a V8 isolate of isolated-vm's, for
 * the common function that answers at once (D216): one context per function in one capped isolate,
 * each attempt run synchronously under a wall-time `timeout`, its effects held (inline-sandbox.ts's
 * `HeldHost`) until it is known to count. An attempt that calls a module, sets a timer, runs past
 * its timeout, grows the heap by more than `INLINE_GROWTH_BYTES` or fails for a reason of its budget
 * is thrown away unseen and run again on a QuickJS worker, which decides; the function then skips
 * this sandbox for a while (doubling). An attempt that reaches the isolate's cap (isolated-vm then
 * disposes the isolate) or holds the thread past `LONG_ATTEMPT_MS` (one builtin call V8 does not
 * interrupt) is a trap: its function never runs here again, and past `TRAP_BUDGET` traps inline runs
 * pause. The default inline runtime stays QuickJS, whose fuel bounds builtins too (D142).
 */
export class IsolatedVmSandbox {
  private isolate: IvmIsolate | null = null;
  private readonly contexts = new Map<string, IvmFunctionContext>();
  private readonly backoff = new InlineBackoff();
  private traps = TRAP_BUDGET;
  /** The isolate's heap in use (its own and its array buffers') at the last measure. */
  private heapBytes = 0;
  private attemptsToMeasure = MEASURE_EVERY_ATTEMPTS;
  private newContexts = CONTEXTS;
  private off = false;

  constructor(
    private readonly ivm: IsolatedVm,
    private readonly logger: Logger,
  ) {}

  /** Runs `fn` here when it can: true when `run` got the invocation's outcome, false when a worker must run it. */
  tryRun(fn: SandboxFunction, request: SandboxRequest, limits: SandboxLimits, run: SandboxRun): boolean {
    this.traps = Math.min(TRAP_BUDGET, this.traps + 1 / CALLS_PER_TRAP);
    const key = fn.key;
    if (this.off || key === null || limits.cpuTicks < MIN_CPU_TICKS || fn.source.length > MAX_INLINE_SOURCE || this.traps < 1 || this.backoff.skips(key, fn.version)) return false;
    this.newContexts = Math.min(CONTEXTS, this.newContexts + 1 / ATTEMPTS_PER_NEW_CONTEXT);
    const warm = this.warm(key, fn);
    if (!warm && this.newContexts < 1) return false;
    const held = new HeldHost();
    const attempt: Attempt = { held, request };
    let entry: IvmFunctionContext | null = warm;
    let outcome: 'counts' | 'moved' | 'trap' | 'broken';
    /** isolated-vm disposed the isolate mid-run (its cap): only a run does that. */
    let disposed = false;
    const began = performance.now();
    let ms = 0;
    try {
      const isolate = this.isolateNow();
      if (warm) this.contexts.delete(key);
      else entry = this.load(isolate, fn, attempt);
      if (entry) this.run(entry, attempt, warm !== null);
      held.idle();
      ms = performance.now() - began;
      if (!warm || ms >= MEASURE_AFTER_MS || --this.attemptsToMeasure <= 0) {
        const before = this.heapBytes;
        this.measure(isolate);
        if (this.heapBytes - before > Math.min(INLINE_GROWTH_BYTES, limits.memoryBytes)) held.mustMove = true;
      }
      outcome = held.counts ? 'counts' : 'moved';
    } catch (error) {
      ms = performance.now() - began;
      disposed = this.isolate?.isDisposed === true;
      outcome = disposed ? 'trap' : error instanceof Error && /timed out/.test(error.message) ? 'moved' : 'broken';
      if (outcome === 'broken') this.logger.warn('functions: isolated-vm inline runs turned off after an error escaped the isolate', { error: error instanceof Error ? error.message : String(error) });
    }
    if (entry) entry.slot.current = null;
    // One builtin call (an array of millions of elements, say) is not interrupted by V8: it holds
    // the thread past the timeout. Such an attempt is a trap, as one that reached the isolate's cap.
    if (outcome !== 'broken' && ms > LONG_ATTEMPT_MS) outcome = 'trap';
    if (outcome === 'counts') {
      this.keep(key, entry);
      this.backoff.counted(key);
    } else {
      entry?.context.release();
      if (outcome === 'moved') this.backoff.moved(key, fn.version);
      else if (outcome === 'trap') this.trapped(key, fn.version);
      else this.off = true;
    }
    if (this.off || disposed || this.heapBytes > RENEW_AT_BYTES) this.renew();
    if (outcome !== 'counts') return false;
    deliverHeld(held, run, key);
    return true;
  }

  dispose(): void {
    this.off = true;
    this.renew();
  }

  /** Runs one invocation in `entry` under its timeout; the reply it sent before returning goes to its held host. */
  private run(entry: IvmFunctionContext, attempt: Attempt, warm: boolean): void {
    entry.slot.current = attempt;
    const early = entry.start.applySync(undefined, [attempt.request.rest, attempt.request.hasRaw], warm ? RUN_OPTIONS : LOAD_OPTIONS);
    entry.slot.current = null;
    if (typeof early === 'string' && early !== '') attempt.held.send(replyOfText(early));
  }

  /** The function never runs here again (this version); past `TRAP_BUDGET` traps inline runs pause. */
  private trapped(key: string, version: number): void {
    this.traps--;
    this.backoff.hold(key, version, Number.POSITIVE_INFINITY);
    this.logger.warn("functions: an isolated-vm attempt ran too long or reached the isolate's memory cap; the function runs on the workers from now on", { function: key.split('\u0000')[1] ?? null });
  }

  /** The isolate, made on first use and after `renew` (which drops a disposed one). */
  private isolateNow(): IvmIsolate {
    if (!this.isolate) {
      this.isolate = new this.ivm.Isolate({ memoryLimit: ISOLATE_MEMORY_MB });
      this.measure(this.isolate);
    }
    return this.isolate;
  }

  private measure(isolate: IvmIsolate): void {
    const heap = isolate.getHeapStatisticsSync();
    this.heapBytes = heap.used_heap_size + heap.externally_allocated_size;
    this.attemptsToMeasure = MEASURE_EVERY_ATTEMPTS;
  }

  /** Drops every context with the isolate (the next attempt makes a new one). */
  private renew(): void {
    const isolate = this.isolate;
    this.isolate = null;
    this.contexts.clear();
    if (isolate && !isolate.isDisposed) isolate.dispose();
  }

  private warm(key: string, fn: SandboxFunction): IvmFunctionContext | null {
    const entry = this.contexts.get(key);
    if (!entry) return null;
    if (entry.version === fn.version && entry.source === fn.source) return entry;
    this.contexts.delete(key);
    entry.context.release();
    return null;
  }

  /**
   * A new context for `fn`: the callbacks, the shim, the bridge, the prelude, and the source's top
   * level (under the load timeout). Null when the source failed to load: `held` has the failure.
   */
  private load(isolate: IvmIsolate, fn: SandboxFunction, attempt: Attempt): IvmFunctionContext | null {
    this.newContexts--;
    const context = isolate.createContextSync();
    const slot: { current: Attempt | null } = { current: attempt };
    const { Callback } = this.ivm;
    const global = context.global;
    global.setSync('__ivmSync', new Callback((kind = '', args = '[]') => syncCall(slot.current, kind, args)));
    global.setSync('__ivmMoved', new Callback(() => {
      if (slot.current) slot.current.held.mustMove = true;
      return undefined;
    }));
    // Replies and failures from promise jobs: the first of them ends the invocation, as in QuickJS.
    // (A reply sent before the call returned comes back as its result, and is the first of all.)
    global.setSync('__ivmRespond', new Callback((text = '') => {
      const held = slot.current?.held;
      if (held && !held.reply && !held.failure) held.send(replyOfText(text));
      return undefined;
    }));
    global.setSync('__ivmFail', new Callback((message = '') => {
      const held = slot.current?.held;
      if (held && !held.reply && !held.failure) held.fail(message === 'Maximum call stack size exceeded' ? 'stack overflow' : message, false);
      return undefined;
    }));
    context.evalSync(SHIM, { filename: 'shim.js' });
    context.evalSync(`globalThis.__bridged = ${JSON.stringify(BRIDGED)};`, { filename: 'bridge.js' });
    const start = context.evalSync(SANDBOX_PRELUDE, { filename: 'prelude.js', reference: true }) as IvmReference;
    try {
      context.evalSync(fn.source, { filename: 'function.js', timeout: LOAD_TIMEOUT_MS });
    } catch (error) {
      if (this.isolate?.isDisposed) throw error;
      context.release();
      if (error instanceof Error && /timed out/.test(error.message)) throw error;
      attempt.held.fail(error instanceof Error ? error.message : String(error), false);
      return null;
    }
    slot.current = null;
    return { version: fn.version, source: fn.source, context, start, slot };
  }

  private keep(key: string, entry: IvmFunctionContext | null): void {
    if (!entry) return;
    this.contexts.set(key, entry);
    if (this.contexts.size <= CONTEXTS) return;
    const [oldestKey, oldest] = this.contexts.entries().next().value as [string, IvmFunctionContext];
    this.contexts.delete(oldestKey);
    oldest.context.release();
  }
}

/**
 * A synchronous host call of the running attempt, answered as text ('v' and JSON, or 'e' and a
 * message): the kinds an inline run may make (the rest move it to a worker, as in QuickJS inline).
 */
function syncCall(current: Attempt | null, kind: string, argsText: string): string {
  if (!current) return 'eno invocation is running';
  const { held, request } = current;
  let args: unknown[];
  try {
    args = JSON.parse(argsText) as unknown[];
  } catch {
    return 'einvalid host call';
  }
  if (!Array.isArray(args) || !held.permitsSync(kind, args)) return `e${kind.slice(0, 32)} is not available here`;
  switch (kind) {
    case 'setHeader': {
      const headers = args[0];
      if (typeof headers !== 'object' || headers === null || Array.isArray(headers)) return 'eoData.setHeader takes an object of header names and values';
      held.setHeader(headers as Record<string, string>);
      return 'vnull';
    }
    case 'hash': {
      const [algorithm, text, encoding] = args as [string, string, string];
      if (!HASHES.has(algorithm)) return `eoCrypto.createHash: ${String(algorithm).slice(0, 32)} is not one of md5, sha1, sha256`;
      return `v${JSON.stringify(createHash(algorithm).update(String(text)).digest(encoding === 'base64' ? 'base64' : 'hex'))}`;
    }
    case 'log':
      held.log(String(args[0]), String(args[1]).slice(0, 8192));
      return 'vnull';
    case 'request':
      if (args[0] === 'headers') return `v${request.headers()}`;
      if (args[0] === 'raw') return `v${JSON.stringify(request.raw())}`;
      return 'ethe request is not available here';
    case 'clearTimer':
      // No timer is ever set here (setting one moves the attempt).
      return 'vnull';
    case 'random': {
      const length = Number(args[0]);
      if (!Number.isSafeInteger(length) || length < 0 || length > 65_536) return 'egetRandomValues: at most 65536 bytes';
      return `v${JSON.stringify({ __bytes: randomBytes(length).toString('base64') })}`;
    }
    default:
      return 'eunknown host call';
  }
}
