import type { QuickJSWASMModule } from 'quickjs-emscripten-core';
import { isSvcError, svcError } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import type { SandboxPackages } from '../sandbox-libraries.js';
import { type WasmGlobal, fuelOf, heapGuardOf } from './quickjs-instance.js';
import { type SandboxHost, type SandboxLimits, wasmMemoryBytes } from './quickjs-sandbox.js';
import type { SandboxRun } from './sandbox-pool.js';
import type { SentReply } from './sandbox-protocol.js';
import type { SandboxRequest } from './sandbox-request.js';
import { type SandboxFunction, WarmContexts } from './warm-contexts.js';
import { InlineBackoff, MAX_BACKOFF } from './inline-backoff.js';

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
/** Sources longer than this are never run inline (parsing them would take most of `LOAD_FUEL`). */
const MAX_INLINE_SOURCE = 4 * 1024;
/**
 * Fuel of one attempt on a warm context (wasm-fuel.ts: a unit per function entry, loop turn or 32
 * bytes copied or filled, and host work by its time; 2.6-7 ns of QuickJS's work each, measured
 * here): the bound of an attempt's time whatever it runs, builtins included (a naive string search,
 * `Object.keys` of a huge object, a loop over a huge array-like in C), which QuickJS's interrupt
 * handler never sees: two interrupt checks allowed 0.7-2.3 million units, and one builtin call
 * billions. A trivial function uses about 3,000. Out of fuel, the instance traps: it is thrown away,
 * and that version of the function never runs inline again.
 */
const RUN_FUEL = 700_000;
/**
 * An attempt is stopped cleanly (and moves to a worker) at the first interrupt check with less fuel
 * left than this: JavaScript loops reach one every 200,000-350,000 units, so they stop there, and
 * only work QuickJS never interrupts (a builtin's loop) runs the fuel out.
 */
const STOP_BELOW_FUEL = 600_000;
/** Fuel of an attempt that first loads a new context: the prelude (about 570,000), a source of up to `MAX_INLINE_SOURCE`, and the run. */
const LOAD_FUEL = 1_450_000;
/** Fuel outside attempts: unbounded in practice (disposing contexts). */
const IDLE_FUEL = 0x7fffffff;
/**
 * Heap an inline context may hold, whatever the function's own cap (a worker applies that): the
 * measure walks every object, so it stays a few milliseconds. Past it the call moves to a worker.
 */
const INLINE_HEAP_BYTES = 8 * 1024 * 1024;
/** Growth of the inline instance's heap one attempt may cause (its allocations beyond are refused and it moves). */
const INLINE_GROWTH_BYTES = 16 * 1024 * 1024;
/** Traps (attempts out of fuel) allowed before inline runs pause; one more is allowed per this many calls. */
const TRAP_BUDGET = 8;
const CALLS_PER_TRAP = 4096;
/**
 * A new context parses the prelude (about 2 ms): at most one per this many attempts once the first
 * `INLINE_CONTEXTS` are spent, so more hot functions than contexts cannot turn every call into a parse.
 */
const ATTEMPTS_PER_NEW_CONTEXT = 128;
/** Strings at most this long may be hashed inline (node:crypto runs on the main thread). */
const INLINE_HASH_CHARS = 256 * 1024;
/** Synchronous host calls an inline run may make: cheap, and bounded by the sandbox's own limits. */
const INLINE_SYNC_KINDS: ReadonlySet<string> = new Set(['setHeader', 'log', 'clearTimer', 'random', 'hash', 'request']);
/**
 * Past this much wasm memory (it never shrinks) the instance retires: the main thread keeps no
 * large heap after a burst of allocations that came in under the measured cap.
 */
const RETIRE_AT_BYTES = 256 * 1024 * 1024;

type Buffered = { readonly kind: 'setHeader'; readonly headers: Record<string, string> } | { readonly kind: 'log'; readonly level: string; readonly message: string };

/** What one inline run did, held back until it is known to count (QuickJS inline, isolated-vm). */
export class HeldHost implements SandboxHost {
  readonly effects: Buffered[] = [];
  reply: SentReply | null = null;
  failure: { readonly message: string; readonly cpu: boolean } | null = null;
  ended = false;
  /** The run started an asynchronous call or a timer, or asked for a host call not offered inline, or ran long. */
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
  /** Host calls run on the main thread outside QuickJS: the sandbox charges their time to the attempt's fuel. */
  permitsSync(kind: string, args: readonly unknown[]): boolean {
    const permitted = INLINE_SYNC_KINDS.has(kind) && (kind !== 'hash' || String(args[1]).length <= INLINE_HASH_CHARS);
    if (!permitted) this.mustMove = true;
    return permitted;
  }
  wentAsync(): void {
    this.mustMove = true;
  }
  /** Stops the attempt at an interrupt check once its fuel runs low: a worker runs it with the full budget. */
  shouldStop(fuelLeft: number | null): boolean {
    if (fuelLeft === null || fuelLeft >= STOP_BELOW_FUEL) return false;
    this.mustMove = true;
    return true;
  }

  /** True when the run ended by itself, in a way a worker's run would end too. */
  get counts(): boolean {
    if (!this.ended || this.mustMove) return false;
    // The inline budget, stack and heap growth are smaller than a worker's: those failures are the worker's to decide.
    return !this.failure || (!this.failure.cpu && this.failure.message !== 'stack overflow' && this.failure.message !== 'out of memory');
  }
}

/**
 * What a counted inline run did reaches the host now; a host that refuses it (a wrong master key, a
 * header that cannot be sent) fails the invocation with its coded error.
 */
export function deliverHeld(held: HeldHost, run: SandboxRun, key: string): void {
  try {
    for (const effect of held.effects) {
      if (effect.kind === 'setHeader') run.setHeader(effect.headers);
      else run.log(effect.level, effect.message);
    }
    if (held.reply) run.send(held.reply);
    else if (held.failure) run.fail(new Error(held.failure.message));
  } catch (error) {
    run.fail(isSvcError(error) ? error : svcError('functionReplyInvalid', key.split('\u0000')[1] ?? 'function', error instanceof Error ? error.message : String(error)));
  }
}

/** What an inline sandbox hands its successor: the functions' waits and the trap budget. */
interface Inherited {
  readonly backoff: InlineBackoff;
  traps: number;
}

/**
 * Warm invocations of deployed functions on the main thread, for the common function that answers
 * at once: one that finishes within `INLINE_TICKS` and its fuel, makes no asynchronous call and
 * sets no timer runs here, without the two thread hops of a worker. Anything else is thrown away
 * unseen (its logs, headers and reply were held back, its module calls never started) and the
 * invocation runs again on a worker, where it gets the full budget; the function then skips the
 * inline attempt for a while (doubling each time, up to `MAX_BACKOFF` invocations).
 *
 * Inline contexts run on a fuelled QuickJS instance of their own (wasm-fuel.ts), so an attempt's
 * time is bounded whatever it runs: `RUN_FUEL` (`LOAD_FUEL` when it parses a new context), host
 * calls paid from the same fuel, and at most `INLINE_GROWTH_BYTES` of heap growth. An attempt out
 * of fuel traps: the instance is retired unseen (its heap is in an unknown state) and its owner
 * loads another; the function goes to the workers for the longest wait, and past `TRAP_BUDGET`
 * traps inline runs pause. New contexts are made at a bounded rate, and long sources never run
 * here; any other error escaping QuickJS turns inline runs off for good.
 */
export class InlineSandbox {
  private readonly contexts: WarmContexts;
  private readonly inherited: Inherited;
  private readonly fuel: WasmGlobal | null;
  /** New contexts that may be made now (refilled by attempts). */
  private newContexts = INLINE_CONTEXTS;
  private off = false;
  private retiredNow = false;
  /** A trap left the instance's heap in an unknown state: nothing of it is touched again. */
  private corrupt = false;

  constructor(
    private readonly quickjs: QuickJSWASMModule,
    packages: SandboxPackages,
    private readonly logger: Logger,
    /** The retired sandbox this one replaces: its functions keep their waits. */
    previous?: InlineSandbox,
  ) {
    this.contexts = new WarmContexts(quickjs, packages, INLINE_CONTEXTS, INLINE_HEAP_BYTES);
    this.inherited = previous ? previous.inherited : { backoff: new InlineBackoff(), traps: TRAP_BUDGET };
    this.fuel = fuelOf(quickjs);
    if (this.fuel) this.fuel.value = IDLE_FUEL;
    // Without fuel an attempt's time has no bound: no inline runs.
    else this.off = true;
  }

  /**
   * Runs `fn` here when it can, with the memory cap of `limits` (its budget and stack are the inline
   * ones): true when `run` got the invocation's outcome, false when a worker must run it.
   */
  tryRun(fn: SandboxFunction, request: SandboxRequest, limits: SandboxLimits, run: SandboxRun): boolean {
    this.inherited.traps = Math.min(TRAP_BUDGET, this.inherited.traps + 1 / CALLS_PER_TRAP);
    const ran = this.attempt(fn, request, limits, run);
    if (!this.retiredNow && (wasmMemoryBytes(this.quickjs) ?? 0) > RETIRE_AT_BYTES) {
      this.retire(fn, MAX_BACKOFF);
      this.logger.warn('functions: the inline QuickJS instance is replaced after its heap grew', { function: fn.key?.split('\u0000')[1] ?? null });
    }
    return ran;
  }

  /** True once its wasm memory grew too large or a trap spoiled it: the owner replaces it with a new instance. */
  get retired(): boolean {
    return this.retiredNow;
  }

  /** Retires the instance; the function that caused it goes to the workers for `skip` calls. */
  private retire(fn: SandboxFunction, skip: number): void {
    this.retiredNow = true;
    this.off = true;
    if (!this.corrupt) this.contexts.clear();
    if (fn.key !== null) this.inherited.backoff.hold(fn.key, fn.version, skip);
  }

  private attempt(fn: SandboxFunction, request: SandboxRequest, limits: SandboxLimits, run: SandboxRun): boolean {
    const key = fn.key;
    const fuel = this.fuel;
    if (this.off || !fuel || key === null || fn.source.length > MAX_INLINE_SOURCE || this.inherited.traps < 1 || this.inherited.backoff.skips(key, fn.version)) return false;
    this.newContexts = Math.min(INLINE_CONTEXTS, this.newContexts + 1 / ATTEMPTS_PER_NEW_CONTEXT);
    const inlineLimits = { memoryBytes: limits.memoryBytes, cpuTicks: INLINE_TICKS, stackBytes: Math.min(limits.stackBytes, INLINE_STACK_BYTES) };
    // A redeployed function parses again: that needs a load's fuel, and a new context's turn.
    const loads = !this.contexts.isWarm(fn, inlineLimits);
    if (loads) {
      if (this.newContexts < 1) return false;
      this.newContexts--;
    }
    const held = new HeldHost();
    const heap = heapGuardOf(this.quickjs);
    try {
      fuel.value = loads ? LOAD_FUEL : RUN_FUEL;
      heap?.allow(INLINE_GROWTH_BYTES);
      const context = this.contexts.invoke(fn, request, inlineLimits, held);
      // Out of fuel where a trap could not reach here (host work charged after the fact): spoiled all the same.
      if (fuel.value <= 0) throw new RangeError('out of fuel');
      if (!held.counts) {
        this.contexts.discard(key, context);
        this.inherited.backoff.moved(key, fn.version);
        return false;
      }
    } catch (error) {
      if (fuel.value <= 0) {
        // Out of fuel: the trap unwound QuickJS mid-operation.
        this.corrupt = true;
        this.inherited.traps--;
        this.retire(fn, Number.POSITIVE_INFINITY);
        this.logger.warn('functions: an inline attempt ran out of fuel; the inline QuickJS instance is replaced', { function: key.split('\u0000')[1] ?? null });
        return false;
      }
      this.off = true;
      this.logger.warn('functions: inline runs turned off after an error escaped QuickJS', { error: error instanceof Error ? error.message : String(error) });
      this.contexts.clear();
      return false;
    } finally {
      if (!this.corrupt) fuel.value = IDLE_FUEL;
      heap?.release();
    }
    this.inherited.backoff.counted(key);
    deliverHeld(held, run, key);
    return true;
  }

  dispose(): void {
    this.off = true;
    if (!this.corrupt) this.contexts.clear();
  }
}
