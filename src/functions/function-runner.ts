import type { Caller } from '../app/caller.js';
import type { Clock } from '../core/clock.js';
import type { MetricsPort } from '../core/metrics.js';
import { isSvcError, svcError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { CloudFunction, FunctionModules, FunctionRequest, FunctionResponse } from './contract.js';
import { type SentReply, functionResponse } from './function-response.js';

/** Schedules a callback; returns its cancel. Default: `setTimeout`, unref'd. Tests pass a manual one. */
export interface FunctionTimer {
  setTimeout(callback: () => void, ms: number): () => void;
}

/**
 * The default timer: one unref'd interval (every 100 ms while anything waits) checks the deadlines
 * of all running invocations, instead of a Node timer armed and cleared per call. A timeout fires
 * within 100 ms of its deadline, which is ample for limits counted in seconds.
 */
export function coarseTimer(tickMs = 100): FunctionTimer {
  const waiting = new Set<{ readonly deadline: number; readonly callback: () => void }>();
  let interval: ReturnType<typeof setInterval> | undefined;
  const tick = () => {
    const now = Date.now();
    for (const entry of waiting) {
      if (entry.deadline > now) continue;
      waiting.delete(entry);
      entry.callback();
    }
    if (waiting.size === 0 && interval) {
      clearInterval(interval);
      interval = undefined;
    }
  };
  return {
    setTimeout(callback, ms) {
      const entry = { deadline: Date.now() + ms, callback };
      waiting.add(entry);
      if (!interval) {
        interval = setInterval(tick, tickMs);
        interval.unref?.();
      }
      return () => void waiting.delete(entry);
    },
  };
}

export const realTimer: FunctionTimer = coarseTimer();

/** The runtime rules of cloud functions (the seed's "Errors" and "Limits"). */
export interface FunctionLimits {
  /** A function that has not sent after this long is a timeout (11030). Default 10 000 ms. */
  readonly timeoutMs: number;
  /** Invocations running at once per application; one more answers 10076 at once. Default 20. */
  readonly maxConcurrent: number;
  /** This many timeouts of one function within `suspendWindowMs` suspend it (11031). Default 5. */
  readonly suspendAfter: number;
  /** Default 60 000 ms. */
  readonly suspendWindowMs: number;
  /** How long a suspension lasts. Default 300 000 ms. */
  readonly suspendForMs: number;
  /** Deepest chain of functions calling functions (`oFunctions.run`). Default 4. */
  readonly maxCallDepth: number;
}

export const DEFAULT_FUNCTION_LIMITS: FunctionLimits = {
  timeoutMs: 10_000,
  maxConcurrent: 20,
  suspendAfter: 5,
  suspendWindowMs: 60_000,
  suspendForMs: 300_000,
  maxCallDepth: 4,
};

function healthKey(appId: string, name: string): string {
  return `${appId}\u0000${name}`;
}

/** Function names: a letter or `_`, then letters, digits, `_` or `-` (at most 64). */
const FUNCTION_NAME = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;

export interface FunctionCall {
  readonly caller: Caller;
  readonly name: string;
  readonly request: FunctionRequest;
  /** 0 for a call from outside; each `oFunctions.run` adds one. */
  readonly depth: number;
  /** On the plain-HTTP path an unknown name runs `notfound` when it is defined. */
  readonly fallback?: string;
  /** Aborted when the invocation ends (sent, failed or timed out): outbound work stops with it. */
  readonly signal?: AbortSignal;
}

/** An invocation's call as its modules see it: the abort signal is made only if a module asks (oHttp, a nested call). */
class RunningCall implements FunctionCall {
  private ended: AbortController | undefined;
  private made: AbortSignal | undefined;

  constructor(
    readonly caller: Caller,
    readonly name: string,
    readonly request: FunctionRequest,
    readonly depth: number,
    private readonly outer: AbortSignal | undefined,
  ) {}

  get signal(): AbortSignal {
    this.ended ??= new AbortController();
    return (this.made ??= this.outer ? AbortSignal.any([this.outer, this.ended.signal]) : this.ended.signal);
  }

  /** The invocation is over: outbound work started for it stops. */
  end(): void {
    this.ended?.abort();
  }
}

/**
 * A function that may wait before it starts (a deployed one, queued for a sandbox worker): it calls
 * `started` once it starts. The runner's timeout counts from then, so the wait counts toward
 * neither the timeout nor the suspension (the queue bounds the wait itself).
 */
export interface QueuedFunction {
  readonly queued: (request: FunctionRequest, response: FunctionResponse, modules: FunctionModules, started: () => void) => void | Promise<void>;
}

/** What the runner can run: a host function, or a queued one. */
export type RunnableFunction = CloudFunction | QueuedFunction;

export interface FunctionRunnerDeps {
  readonly functions: Readonly<Record<string, CloudFunction>>;
  /** Functions deployed as source for the caller's application, looked up after the host's (none by default). */
  readonly deployed?: (caller: Caller, name: string) => RunnableFunction | undefined | Promise<RunnableFunction | undefined>;
  readonly limits: FunctionLimits;
  /** An application's own timeout and concurrency cap (`featureSettings.functions`), over `limits`. */
  readonly limitsOf?: (caller: Caller) => Pick<FunctionLimits, 'timeoutMs' | 'maxConcurrent'>;
  readonly clock: Clock;
  readonly timer: FunctionTimer;
  readonly logger: Logger;
  /** The modules of one invocation, bound to its caller and depth. */
  readonly modules: (call: FunctionCall) => FunctionModules;
  /** Where each invocation that ran is counted, with its time (none by default). */
  readonly metrics?: MetricsPort;
}

interface Health {
  timeouts: number[];
  suspendedUntil: number;
}

/**
 * Runs cloud functions with the runtime rules: a per-application concurrency cap, a timeout on the
 * injected timer, suspension after repeated timeouts (on the injected clock), a bounded call depth.
 * A function's own coded error (a SvcError, e.g. from a module) passes through; anything else it
 * throws is 11033 with its message.
 */
export class FunctionRunner {
  /** Invocations running per application: one counter object each, kept (applications are few). */
  private readonly running = new Map<string, { count: number }>();
  private readonly health = new Map<string, Health>();

  constructor(private readonly deps: FunctionRunnerDeps) {}

  /**
   * Runs one invocation: the reply itself when the function sent before returning, else a promise of
   * it (promises are not free, and an invocation is on every function call). Failures are rejections.
   */
  invoke(call: FunctionCall): SentReply | Promise<SentReply> {
    const { limits } = this.deps;
    try {
      if (!FUNCTION_NAME.test(call.name)) throw svcError('functionNameInvalid', call.name.slice(0, 64));
      if (call.depth > limits.maxCallDepth) throw svcError('functionCallDepth', limits.maxCallDepth);
      const own = this.hostFunction(call.name);
      if (own) return this.start(own, call.name, call);
      const fallback = call.fallback && !this.deps.deployed ? this.hostFunction(call.fallback) : undefined;
      if (fallback) return this.start(fallback, call.fallback!, call);
      if (!this.deps.deployed) throw svcError('functionNotFound', call.name);
      // A deployed function found without waiting (its application's sources cached) starts at once.
      const found = this.deps.deployed(call.caller, call.name);
      if (found instanceof Promise) return found.then((fn) => this.startDeployed(fn, call));
      return this.startDeployed(found, call);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  private startDeployed(fn: RunnableFunction | undefined, call: FunctionCall): SentReply | Promise<SentReply> {
    if (fn) return this.start(fn, call.name, call);
    return this.resolveFallback(call).then(([fallback, name]) => this.start(fallback, name, call));
  }

  private hostFunction(name: string): CloudFunction | undefined {
    return Object.hasOwn(this.deps.functions, name) ? this.deps.functions[name] : undefined;
  }

  /** No deployed function of the name: the fallback (`notfound`), host-defined or deployed. */
  private async resolveFallback(call: FunctionCall): Promise<[RunnableFunction, string]> {
    const deployed = this.deps.deployed!;
    if (call.fallback) {
      const fallback = this.hostFunction(call.fallback) ?? (await deployed(call.caller, call.fallback));
      if (fallback) return [fallback, call.fallback];
    }
    throw svcError('functionNotFound', call.name);
  }

  /** Forgets the timeouts and the suspension of a function (an operator resumed it). */
  resume(appId: string, name: string): void {
    this.health.delete(healthKey(appId, name));
  }

  /** Whether a function is suspended now, and its recent timeouts. */
  healthOf(appId: string, name: string): { readonly suspended: boolean; readonly recentTimeouts: number } {
    const health = this.health.get(healthKey(appId, name));
    const now = this.deps.clock.now();
    return { suspended: (health?.suspendedUntil ?? 0) > now, recentTimeouts: health?.timeouts.filter((at) => at > now - this.deps.limits.suspendWindowMs).length ?? 0 };
  }

  private start(fn: RunnableFunction, name: string, call: FunctionCall): SentReply | Promise<SentReply> {
    const limits = this.deps.limitsOf?.(call.caller) ?? this.deps.limits;
    const app = call.caller.app.applicationId;
    if (this.health.size > 0) {
      const health = this.health.get(healthKey(app, name));
      if (health && health.suspendedUntil > this.deps.clock.now()) return Promise.reject(svcError('functionSuspended', name));
    }
    // Nested calls (oFunctions.run) belong to an invocation already counted: counting them again
    // would let a chain deeper than the cap block itself.
    if (call.depth > 0) return this.runOne(fn, name, call, limits.timeoutMs, null);
    let running = this.running.get(app);
    if (!running) this.running.set(app, (running = { count: 0 }));
    if (running.count >= limits.maxConcurrent) return Promise.reject(svcError('functionConcurrency', limits.maxConcurrent, running.count, name));
    running.count++;
    return this.runOne(fn, name, call, limits.timeoutMs, running);
  }

  /**
   * Runs the function. One that sends before returning (most do) gets its reply back as a value, with
   * no promise or timer made; otherwise the timeout is armed and a promise settles with the first of
   * send, throw or timeout. Failures are always a rejected promise.
   */
  private runOne(fn: RunnableFunction, name: string, outer: FunctionCall, timeoutMs: number, running: { count: number } | null): SentReply | Promise<SentReply> {
    const call = new RunningCall(outer.caller, name, outer.request, outer.depth, outer.signal);
    const metrics = this.deps.metrics;
    const startedAt = metrics?.enabled ? performance.now() : 0;
    let settled = false;
    // A queued function's time starts when it says so; a host function's at once.
    let began = typeof fn === 'function';
    let outcome: { readonly reply: SentReply } | { readonly error: unknown } | undefined;
    let later: { readonly resolve: (reply: SentReply) => void; readonly reject: (error: unknown) => void } | undefined;
    let cancel: (() => void) | undefined;
    const finish = (result: { readonly reply: SentReply } | { readonly error: unknown }) => {
      settled = true;
      cancel?.();
      call.end();
      if (running) running.count--;
      if (startedAt !== 0) metrics!.functionCall(outer.caller.app.applicationId, name, !('reply' in result), performance.now() - startedAt);
      if (!later) outcome = result;
      else if ('reply' in result) later.resolve(result.reply);
      else later.reject(result.error);
    };
    const failed = (error: unknown) => {
      if (settled) return;
      // A function stopped for its CPU budget counts towards suspension as a timeout does.
      if (isSvcError(error) && error.errorName === 'functionCpuExceeded') this.timedOut(outer.caller.app.applicationId, name);
      if (isSvcError(error)) return finish({ error });
      this.deps.logger.warn('cloud function threw', { function: name, error: String(error) });
      finish({ error: svcError('functionFailed', name, error instanceof Error ? error.message : String(error)) });
    };
    const response = functionResponse((reply) => {
      if (!settled) finish({ reply });
    });
    const armTimeout = () => {
      cancel = this.deps.timer.setTimeout(() => {
        if (settled) return;
        this.timedOut(outer.caller.app.applicationId, name);
        finish({ error: svcError('functionTimeout', name, timeoutMs) });
      }, timeoutMs);
    };
    const started = () => {
      if (began) return;
      began = true;
      if (later && !settled) armTimeout();
    };
    try {
      const modules = this.deps.modules(call);
      const returned = typeof fn === 'function' ? fn(call.request, response, modules) : fn.queued(call.request, response, modules, started);
      if (returned && typeof (returned as Promise<void>).then === 'function') (returned as Promise<void>).then(undefined, failed);
    } catch (error) {
      failed(error);
    }
    if (outcome) return 'reply' in outcome ? outcome.reply : Promise.reject(outcome.error);
    return new Promise<SentReply>((resolve, reject) => {
      later = { resolve, reject };
      if (began) armTimeout();
    });
  }

  private timedOut(appId: string, name: string): void {
    const { limits, clock } = this.deps;
    const key = healthKey(appId, name);
    const now = clock.now();
    const health = this.health.get(key) ?? { timeouts: [], suspendedUntil: 0 };
    health.timeouts = health.timeouts.filter((at) => at > now - limits.suspendWindowMs);
    health.timeouts.push(now);
    if (health.timeouts.length >= limits.suspendAfter) {
      health.suspendedUntil = now + limits.suspendForMs;
      health.timeouts = [];
      this.deps.logger.warn('cloud function suspended after repeated timeouts', { function: name, forMs: limits.suspendForMs });
    }
    this.health.set(key, health);
  }
}
