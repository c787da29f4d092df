import type { QuickJSWASMModule } from 'quickjs-emscripten-core';
import type { Logger } from '../../core/logger.js';
import type { SandboxPackages } from '../sandbox-libraries.js';
import { type SandboxHost, type SandboxLimits, wasmMemoryBytes } from './quickjs-sandbox.js';
import type { SandboxRun } from './sandbox-pool.js';
import type { SentReply } from './sandbox-protocol.js';
import { type SandboxFunction, WarmContexts } from './warm-contexts.js';

/**
 * QuickJS interrupt checks an inline run may pass (one about every 10 000 bytecode steps, about
 * 0.6 ms of interpreted work here) before it is stopped and run again on a worker.
 */
const INLINE_TICKS = 2;
/**
 * The inline runtime's stack. The wasm frames of QuickJS's recursion share the main thread's native
 * stack (about 1 MB) with the host's frames: 512 KiB of QuickJS stack overflows V8's first, which
 * would leave the wasm heap in an unknown state. 128 KiB (about 680 nested calls) leaves room.
 */
const INLINE_STACK_BYTES = 128 * 1024;
/** Idle inline contexts kept (each holds its function's warm state on the main thread's heap). */
const INLINE_CONTEXTS = 64;
/** Sources longer than this are never run inline: parsing cannot be interrupted. */
const MAX_INLINE_SOURCE = 64 * 1024;
/**
 * A new context parses the prelude (about 2 ms): at most one per this many attempts once the first
 * `INLINE_CONTEXTS` are spent, so more hot functions than contexts cannot turn every call into a parse.
 */
const ATTEMPTS_PER_NEW_CONTEXT = 128;
/** Strings at most this long may be hashed inline (node:crypto runs on the main thread). */
const INLINE_HASH_CHARS = 256 * 1024;
/** Synchronous host calls an inline run may make: cheap, and bounded by the sandbox's own limits. */
const INLINE_SYNC_KINDS: ReadonlySet<string> = new Set(['setHeader', 'log', 'clearTimer', 'random', 'hash']);
/** After a run had to go to a worker, that many of the function's next invocations go there directly (doubling, at most this). */
const MAX_BACKOFF = 1024;
/**
 * Past this much wasm memory (it never shrinks) the instance retires: the main thread keeps no
 * large heap after a burst of allocations that came in under the measured cap.
 */
const RETIRE_AT_BYTES = 256 * 1024 * 1024;
/** Functions whose backoff is remembered; past it the oldest is forgotten. */
const MAX_TRACKED = 4096;

type Buffered = { readonly kind: 'setHeader'; readonly headers: Record<string, string> } | { readonly kind: 'log'; readonly level: string; readonly message: string };

/** What one inline run did, held back until it is known to count. */
class HeldHost implements SandboxHost {
  readonly effects: Buffered[] = [];
  reply: SentReply | null = null;
  failure: { readonly message: string; readonly cpu: boolean } | null = null;
  ended = false;
  /** The run started an asynchronous call or a timer, or asked for a host call not offered inline. */
  mustMove = false;

  call(): Promise<never> {
    this.mustMove = true;
    // Never started: the worker's run makes the call, once.
    return new Promise<never>(() => {});
  }
  setHeader(headers: Record<string, string>): void {
    this.effects.push({ kind: 'setHeader', headers });
  }
  log(level: string, message: string): void {
    this.effects.push({ kind: 'log', level, message });
  }
  send(reply: SentReply): void {
    this.reply = reply;
  }
  fail(message: string, cpu: boolean): void {
    this.failure = { message, cpu };
  }
  idle(): void {
    this.ended = true;
  }
  permitsSync(kind: string, args: readonly unknown[]): boolean {
    const permitted = INLINE_SYNC_KINDS.has(kind) && (kind !== 'hash' || String(args[1]).length <= INLINE_HASH_CHARS);
    if (!permitted) this.mustMove = true;
    return permitted;
  }
  wentAsync(): void {
    this.mustMove = true;
  }

  /** True when the run ended by itself, in a way a worker's run would end too. */
  get counts(): boolean {
    if (!this.ended || this.mustMove) return false;
    // The inline budget and stack are smaller than a worker's: those failures are the worker's to decide.
    return !this.failure || (!this.failure.cpu && this.failure.message !== 'stack overflow');
  }
}

/**
 * Warm invocations of deployed functions on the main thread, for the common function that answers
 * at once: one that finishes within `INLINE_TICKS`, makes no asynchronous call and sets no timer
 * runs here, without the two thread hops of a worker. Anything else is thrown away unseen (its
 * logs, headers and reply were held back, its module calls never started) and the invocation runs
 * again on a worker, where it gets the full budget; the function then skips the inline attempt for
 * a while (doubling each time, up to `MAX_BACKOFF` invocations). Inline contexts run on a QuickJS
 * instance of their own, with the function's memory cap and a smaller stack; new ones are made at a
 * bounded rate, and long sources never run here; an error escaping QuickJS turns inline runs off
 * for good.
 */
export class InlineSandbox {
  private readonly contexts: WarmContexts;
  private readonly backoff: Map<string, { version: number; skip: number; next: number }>;
  /** New contexts that may be made now (refilled by attempts). */
  private newContexts = INLINE_CONTEXTS;
  private off = false;
  private retiredNow = false;

  constructor(
    private readonly quickjs: QuickJSWASMModule,
    packages: SandboxPackages,
    private readonly logger: Logger,
    /** The retired sandbox this one replaces: its functions keep their waits. */
    previous?: InlineSandbox,
  ) {
    this.contexts = new WarmContexts(quickjs, packages, INLINE_CONTEXTS);
    this.backoff = previous ? previous.backoff : new Map();
  }

  /**
   * Runs `fn` here when it can, with the memory cap of `limits` (its budget and stack are the inline
   * ones): true when `run` got the invocation's outcome, false when a worker must run it.
   */
  tryRun(fn: SandboxFunction, requestText: string, limits: SandboxLimits, run: SandboxRun): boolean {
    const ran = this.attempt(fn, requestText, limits, run);
    if (!this.retiredNow && (wasmMemoryBytes(this.quickjs) ?? 0) > RETIRE_AT_BYTES) {
      this.retiredNow = true;
      this.off = true;
      this.contexts.clear();
      this.logger.warn('functions: the inline QuickJS instance is replaced after its heap grew', { function: fn.key?.split('\u0000')[1] ?? null });
      // The function that grew it goes to the workers for the longest wait.
      if (fn.key !== null) this.backoff.set(fn.key, { version: fn.version, skip: MAX_BACKOFF, next: MAX_BACKOFF });
    }
    return ran;
  }

  /** True once its wasm memory grew too large: the owner replaces it with a new instance. */
  get retired(): boolean {
    return this.retiredNow;
  }

  private attempt(fn: SandboxFunction, requestText: string, limits: SandboxLimits, run: SandboxRun): boolean {
    const key = fn.key;
    if (this.off || key === null || fn.source.length > MAX_INLINE_SOURCE || this.skips(key, fn.version)) return false;
    this.newContexts = Math.min(INLINE_CONTEXTS, this.newContexts + 1 / ATTEMPTS_PER_NEW_CONTEXT);
    if (!this.contexts.has(key)) {
      if (this.newContexts < 1) return false;
      this.newContexts--;
    }
    const held = new HeldHost();
    try {
      const inlineLimits = { memoryBytes: limits.memoryBytes, cpuTicks: INLINE_TICKS, stackBytes: Math.min(limits.stackBytes, INLINE_STACK_BYTES) };
      const context = this.contexts.invoke(fn, requestText, inlineLimits, held);
      if (!held.counts) {
        this.contexts.discard(key, context);
        this.moved(key, fn.version);
        return false;
      }
    } catch (error) {
      this.off = true;
      this.logger.warn('functions: inline runs turned off after an error escaped QuickJS', { error: error instanceof Error ? error.message : String(error) });
      this.contexts.clear();
      return false;
    }
    this.counted(key);
    for (const effect of held.effects) {
      if (effect.kind === 'setHeader') run.setHeader(effect.headers);
      else run.log(effect.level, effect.message);
    }
    if (held.reply) run.send(held.reply);
    else if (held.failure) run.fail(new Error(held.failure.message));
    return true;
  }

  dispose(): void {
    this.off = true;
    this.contexts.clear();
  }

  private skips(key: string, version: number): boolean {
    const state = this.backoff.get(key);
    if (!state || state.version !== version || state.skip === 0) return false;
    state.skip--;
    return true;
  }

  private moved(key: string, version: number): void {
    const state = this.backoff.get(key);
    const next = state && state.version === version ? Math.min(MAX_BACKOFF, state.next * 2) : 8;
    this.backoff.delete(key);
    this.backoff.set(key, { version, skip: next, next });
    if (this.backoff.size > MAX_TRACKED) this.backoff.delete(this.backoff.keys().next().value as string);
  }

  private counted(key: string): void {
    const state = this.backoff.get(key);
    if (state) state.next = Math.max(8, state.next >> 1);
  }
}
