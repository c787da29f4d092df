import type { QuickJSContext, QuickJSDeferredPromise, QuickJSHandle, QuickJSRuntime, QuickJSWASMModule } from 'quickjs-emscripten-core';
import { createHash, randomBytes } from 'node:crypto';
import type { Json } from '../../core/wire-values.js';
import { SANDBOX_PRELUDE } from './sandbox-prelude.js';
import { replyOfText } from './sandbox-protocol.js';
import type { SandboxRequest } from './sandbox-request.js';
import { SANDBOX_ASYNC_SOURCE } from './sandbox-async.js';
import { gunzipSync, gzipSync } from 'node:zlib';
import { type IconvLite, MAX_INFLATED, convertText } from '../util-modules.js';
import { sandboxTimers } from './sandbox-timers.js';
import { rsaCall, rsaStateOf } from '../rsa-module.js';
import type { SandboxPackages } from '../sandbox-libraries.js';
import { type HeapGuard, type WasmGlobal, fuelOf, heapGuardOf, instantiateQuickJs, wasmMemoryBytes } from './quickjs-instance.js';

export { wasmMemoryBytes };

/** What one deployed invocation may use. */
export interface SandboxLimits {
  /** Heap of the invocation's QuickJS runtime, in bytes (default 32 MiB; past it: 11033 out of memory). */
  readonly memoryBytes: number;
  /**
   * CPU budget, in QuickJS interrupt checks (one about every 10 000 bytecode steps; default 20 000,
   * roughly 1-2 s of busy computation here). Counted, not timed, so a loop in sync code or in a
   * promise chain is stopped the same on every machine and under a fake clock (11030).
   */
  readonly cpuTicks: number;
  /** Deepest native stack, in bytes (default 512 KiB). */
  readonly stackBytes: number;
}

export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = { memoryBytes: 32 * 1024 * 1024, cpuTicks: 20_000, stackBytes: 512 * 1024 };

/** Module methods a sandboxed function reaches through the bridge, and their style. */
export const BRIDGED: Readonly<Record<string, Readonly<Record<string, 'callback' | 'promise'>>>> = {
  oData: {
    find: 'callback', findOne: 'callback', insert: 'callback', update: 'callback', remove: 'callback',
    userSignUp: 'callback', userLogin: 'callback', userRestPassword: 'callback', requestEmailVerify: 'callback',
    getUserByObjectId: 'callback', updateUserByObjectId: 'callback', removeUserByObjectId: 'callback', getAllUser: 'callback',
  },
  oFunctions: { run: 'callback' },
  oRelation: { add: 'callback', update: 'callback', delete: 'callback', query: 'callback' },
  oAtom: { exec: 'callback' },
  oArray: { add: 'callback', addUnique: 'callback', remove: 'callback', query: 'callback' },
  oLocation: { create: 'callback', query: 'callback' },
  oBatch: { exec: 'callback' },
  oBql: { exec: 'callback' },
  oFile: { del: 'callback' },
  oRedis: Object.fromEntries(['set', 'get', 'hset', 'hget', 'hgetall', 'lpush', 'rpush', 'lrange', 'lpop', 'rpop', 'sadd', 'smembers', 'spop', 'del', 'exists', 'expire'].map((m) => [m, 'promise' as const])),
};

export const HASHES: ReadonlySet<string> = new Set(['md5', 'sha1', 'sha256']);
/** Module calls (timers aside) one invocation may have waiting at once. */
const MAX_CALLS_IN_FLIGHT = 128;
/** Characters of one module call's arguments (as JSON). */
const MAX_CALL_ARGS_CHARS = 8 * 1024 * 1024;
/** Characters of the arguments of all of one invocation's module calls in flight. */
const MAX_CALL_CHARS_IN_FLIGHT = 16 * 1024 * 1024;

/**
 * Interrupt checks between two measures of a runtime's memory. A measure costs about 90 µs, so a
 * busy function pays about 4% of its time.
 */
const MEASURE_EVERY_TICKS = 4;
/**
 * Invocations between two measures at an invocation's end, for short calls that keep what they
 * allocate in heap the instance already has (it does not grow, and no interrupt check comes).
 */
const MEASURE_EVERY_INVOCATIONS = 32;
/** Growth of the instance's wasm memory that brings the next measure forward. */
const MEASURE_AFTER_GROWTH = 4 * 1024 * 1024;
const MEMORY_USED = /memory used\s+\d+\s+(\d+)/;
/**
 * In a fuelled instance (wasm-fuel.ts): fuel an invocation may use between two measures at its end.
 * The measure walks the runtime (its time grows with the objects in it), so it comes before an
 * invocation could have made more than about 100,000 new objects.
 */
const MEASURE_EVERY_FUEL = 1_000_000;
/**
 * Fuel a callback from QuickJS costs before its text: host work is charged by the size of what it
 * reads (one unit a character: its JSON parse, a hash over it), never by its time, so a run's fuel
 * does not depend on the machine's load.
 */
const CALLBACK_FUEL = 300;
/** Fuel while host work runs: nothing QuickJS does for it can trap. */
const HOST_FUEL = 0x7fffffff;

/** Loads QuickJS once per thread (the instance every caller of this function shares). */
export function loadQuickJs(resolveFrom: string = import.meta.url): Promise<QuickJSWASMModule> {
  loading ??= instantiateQuickJs(resolveFrom, false).catch((error: unknown) => {
    loading = null;
    throw error;
  });
  return loading;
}

let loading: Promise<QuickJSWASMModule> | null = null;

/**
 * A QuickJS instance of its own (a wasm module and heap of its own, not the one `loadQuickJs`
 * shares), for a user that must be able to throw its instance away; `fuel`: the fuelled build
 * (wasm-fuel.ts), whose work per call is bounded by its fuel global (`fuelOf`).
 */
export function newQuickJsInstance(resolveFrom: string = import.meta.url, options: { readonly fuel?: boolean } = {}): Promise<QuickJSWASMModule> {
  return instantiateQuickJs(resolveFrom, options.fuel ?? false);
}

/** A syntax error of a source, `line N: message`, or null when it compiles. */
export function syntaxErrorOf(quickjs: QuickJSWASMModule, source: string): string | null {
  const runtime = quickjs.newRuntime();
  runtime.setMemoryLimit(DEFAULT_SANDBOX_LIMITS.memoryBytes);
  const context = runtime.newContext();
  try {
    // Compiled as the body of a never-called function: checks the syntax and runs nothing.
    const result = context.evalCode(`(function () {\n${source}\n})`, 'function.js', { compileOnly: true });
    if (!result.error) {
      result.value.dispose();
      return null;
    }
    const error = context.dump(result.error) as { message?: string; lineNumber?: number };
    result.error.dispose();
    return `line ${Math.max(1, (error.lineNumber ?? 2) - 1)}: ${error.message ?? 'syntax error'}`;
  } finally {
    context.dispose();
    runtime.dispose();
  }
}

function jsonText(value: unknown): string {
  return JSON.stringify(value === undefined ? null : value);
}

/** What the sandbox asks of its host during one invocation (in a worker: messages to the main thread). */
export interface SandboxHost {
  /** A bridged module call (`BRIDGED`, `oHttp`): the value, or rejects with `{code, error}`. */
  call(module: string, method: string, args: unknown[]): Promise<Json>;
  setHeader(headers: Record<string, string>): void;
  log(level: string, message: string): void;
  send(reply: { value: Json; status: number; headers: Record<string, string> }): void;
  /** The function threw, ran out of memory, or (`cpu`) used up its CPU budget. */
  fail(message: string, cpu: boolean): void;
  /** The runtime is gone: the function sent, failed, or can no longer send. */
  idle(): void;
  /**
   * Optional: asked before a synchronous host call (`kind`: setHeader, hash, log, clearTimer,
   * request, library, random, rsa, gzip, ungzip, convert) runs; false answers the sandbox an error instead.
   */
  permitsSync?(kind: string, args: readonly unknown[]): boolean;
  /** Optional: told when the function starts an asynchronous host call or a timer. */
  wentAsync?(): void;
  /**
   * Optional: asked at each interrupt check, with the fuel left in a fuelled instance (else null);
   * true stops the invocation there, as its CPU budget would.
   */
  shouldStop?(fuelLeft: number | null): boolean;
}

/** One invocation's side of the context: its request, and who receives its reply and module calls. */
interface Invocation {
  readonly request: SandboxRequest;
  readonly host: SandboxHost;
  finished: boolean;
  failed: boolean;
}

/**
 * One deployed source loaded in a QuickJS runtime and context of its own (a wasm heap: no `process`,
 * `require`, file system or host object is reachable). The memory cap and the CPU budget stop
 * runaway code; module calls cross the boundary as JSON. Parsing the prelude and the source is most
 * of an invocation's cost, so a context that ended an invocation cleanly (sent, nothing pending) can
 * start the next one of the same source (`reusable`): its globals persist, as in a Node.js process.
 * One that failed, or sent while work was still pending, is disposed.
 */
export class SandboxContext {
  private runtime: QuickJSRuntime | null;
  private readonly context: QuickJSContext;
  private start: QuickJSHandle | null = null;
  private readonly timers = sandboxTimers();
  private ticks = 0;
  private ticksToMeasure = MEASURE_EVERY_TICKS;
  private invocationsToMeasure = MEASURE_EVERY_INVOCATIONS;
  /** The instance's wasm memory size past which the runtime is measured before its next scheduled measure. */
  private measureAtBytes: number;
  /** The runtime's own measure found it past `limits.memoryBytes`: the invocation fails, the context is dropped. */
  private memoryExceeded = false;
  /** Host calls in flight: disposed with the context, since a live handle stops QuickJS freeing its runtime. */
  private readonly pendingHostCalls = new Set<QuickJSDeferredPromise>();
  private current: Invocation | null = null;
  private loaded = false;
  /** The instance's heap guard (quickjs-instance.ts): a refused growth is this invocation's out of memory. */
  private readonly heap: HeapGuard | null;
  /** Characters of module-call arguments in flight (bounded with the calls' count). */
  private pendingCallChars = 0;
  /** The instance's fuel when it is fuelled (the inline instance), else null. */
  private readonly fuel: WasmGlobal | null;
  /** Fuel used since the last measure (fuelled instances). */
  private fuelSinceMeasure = 0;
  /** Characters the running callback read from QuickJS (charged as fuel when it returns). */
  private hostChars = 0;

  constructor(
    private readonly quickjs: QuickJSWASMModule,
    readonly source: string,
    readonly limits: SandboxLimits,
    private readonly packages: SandboxPackages,
    /** A smaller cap the measure holds the context to (the inline sandbox's), QuickJS's own limit staying `limits.memoryBytes`. */
    private readonly measuredCapBytes = Number.POSITIVE_INFINITY,
  ) {
    const runtime = quickjs.newRuntime();
    this.runtime = runtime;
    // In this wasm build QuickJS's cap refuses a single allocation over it but counts each block as
    // 8 bytes (quickjs-emscripten issue 271): the total is held by measuring (overMemory).
    runtime.setMemoryLimit(limits.memoryBytes);
    runtime.setMaxStackSize(limits.stackBytes);
    this.measureAtBytes = (wasmMemoryBytes(quickjs) ?? 0) + MEASURE_AFTER_GROWTH;
    this.heap = heapGuardOf(quickjs);
    this.fuel = fuelOf(quickjs);
    runtime.setInterruptHandler(() =>
      this.outside(
        (fuelLeft) => ++this.ticks > limits.cpuTicks || this.current?.host.shouldStop?.(fuelLeft) === true || this.heap?.refused === true || ((--this.ticksToMeasure <= 0 || this.heapGrew()) && this.overMemory()),
        true,
        0,
      ),
    );
    this.context = runtime.newContext();
    this.bindHost();
  }

  /** True when the context can start another invocation. */
  get reusable(): boolean {
    return this.runtime !== null && this.current === null;
  }

  /**
   * Host work called from QuickJS (a callback, the interrupt handler) in a fuelled instance: run
   * with fuel to spare, so nothing it asks of QuickJS traps inside a callback (whose wrapper would
   * swallow the trap), then charged `cost` plus the characters it read (`textOf`). The interrupt
   * handler costs nothing: its measure is bounded by the inline heap. With no fuel left it does
   * nothing and answers `empty` (QuickJS traps at its next check).
   */
  private outside<T>(work: (fuelLeft: number | null) => T, empty: T, cost = CALLBACK_FUEL): T {
    const fuel = this.fuel;
    if (!fuel) return work(null);
    const left = fuel.value;
    if (left < 1) return empty;
    fuel.value = HOST_FUEL;
    this.hostChars = 0;
    try {
      return work(left);
    } finally {
      fuel.value = left - (cost === 0 ? 0 : cost + this.hostChars);
    }
  }

  /** A string handle's text, its length charged to the running callback. */
  private textOf(handle: QuickJSHandle): string {
    const text = this.context.getString(handle);
    this.hostChars += text.length;
    return text;
  }

  /** Starts one invocation of `request`; `host.idle()` reports its end (the context then reusable or disposed). */
  invoke(request: SandboxRequest, host: SandboxHost): void {
    if (!this.reusable) throw new Error('the sandbox context is busy or disposed');
    const fuelAtStart = this.fuel?.value ?? 0;
    const invocation: Invocation = { request, host, finished: false, failed: false };
    this.current = invocation;
    this.ticks = 0;
    // The first invocation loads the prelude and the source: their top level runs as part of it.
    const loadError = this.loaded ? null : this.load();
    this.loaded = true;
    if (loadError !== null || !this.start) {
      this.failWith(loadError ?? 'the function did not load');
    } else {
      const text = this.context.newString(request.rest);
      const result = this.context.callFunction(this.start, this.context.undefined, text, request.hasRaw ? this.context.true : this.context.false);
      text.dispose();
      if (result.error) this.failWith(this.errorMessage(result.error));
      else {
        // The reply sent before onRequest returned, or '' (later replies come through __respond).
        const early = this.context.getString(result.value);
        result.value.dispose();
        if (early !== '') this.deliver(early);
      }
    }
    if (this.fuel) this.fuelSinceMeasure += fuelAtStart - this.fuel.value;
    this.pump();
  }

  dispose(): void {
    if (!this.runtime) return;
    const runtime = this.runtime;
    this.runtime = null;
    this.timers.clearAll();
    for (const deferred of this.pendingHostCalls) deferred.dispose();
    this.pendingHostCalls.clear();
    this.start?.dispose();
    this.context.dispose();
    runtime.dispose();
  }

  /** Evaluates the bridge, the prelude and the source: null, or the error that stopped them. */
  private load(): string | null {
    const bridged = this.context.newString(JSON.stringify(BRIDGED));
    this.context.setProp(this.context.global, '__bridged', bridged);
    bridged.dispose();
    const bridge = this.context.evalCode('globalThis.__bridged = JSON.parse(globalThis.__bridged);', 'bridge.js');
    if (bridge.error) return this.errorMessage(bridge.error);
    bridge.value.dispose();
    const prelude = this.context.evalCode(SANDBOX_PRELUDE, 'prelude.js');
    if (prelude.error) return this.errorMessage(prelude.error);
    this.start = prelude.value;
    // The budget is the function's: the prelude is the same fixed cost for every function.
    this.ticks = 0;
    const loaded = this.context.evalCode(this.source, 'function.js');
    if (loaded.error) return this.errorMessage(loaded.error);
    loaded.value.dispose();
    return null;
  }

  private errorMessage(handle: QuickJSHandle): string {
    const error = this.context.dump(handle) as { message?: string } | null;
    handle.dispose();
    return error?.message ?? String(error);
  }

  /**
   * The function's reply (its JSON text), unless the invocation already ended. A reply after the
   * heap grew is measured first: one sent past the memory cap is the cap's error, not a reply.
   */
  private deliver(replyText: string): void {
    const invocation = this.current;
    if (!invocation || invocation.finished) return;
    if (this.heap?.refused || this.heapGrew()) this.overMemory();
    if (this.memoryExceeded) return this.failWith('out of memory');
    invocation.finished = true;
    invocation.host.send(replyOfText(replyText));
  }

  private failWith(message: string): void {
    const invocation = this.current;
    if (!invocation || invocation.finished) return;
    invocation.finished = true;
    invocation.failed = true;
    if (this.memoryExceeded) invocation.host.fail('out of memory', false);
    else invocation.host.fail(message, this.ticks > this.limits.cpuTicks);
  }

  private heapGrew(): boolean {
    const bytes = wasmMemoryBytes(this.quickjs);
    return bytes !== null && bytes >= this.measureAtBytes;
  }

  /** Measures the runtime's memory: true (and the invocation stops) past `limits.memoryBytes` (or the smaller `measuredCapBytes`). */
  private overMemory(): boolean {
    this.fuelSinceMeasure = 0;
    this.ticksToMeasure = MEASURE_EVERY_TICKS;
    this.invocationsToMeasure = MEASURE_EVERY_INVOCATIONS;
    this.measureAtBytes = (wasmMemoryBytes(this.quickjs) ?? 0) + MEASURE_AFTER_GROWTH;
    if (this.heap?.refused) this.memoryExceeded = true;
    const used = this.runtime && !this.memoryExceeded ? MEMORY_USED.exec(this.runtime.dumpMemoryUsage()) : null;
    if (used && Number(used[1]) > Math.min(this.limits.memoryBytes, this.measuredCapBytes)) this.memoryExceeded = true;
    return this.memoryExceeded;
  }

  /** Runs queued promise jobs; ends the invocation once it sent or failed, or nothing more can happen. */
  private pump(): void {
    const runtime = this.runtime;
    const invocation = this.current;
    if (!runtime || !invocation) return;
    // Most warm calls leave no job: asking is one wasm call, running the queue several.
    if (runtime.hasPendingJob()) {
      const jobs = runtime.executePendingJobs();
      if (jobs.error) this.failWith(this.errorMessage(jobs.error));
      else jobs.dispose();
    }
    // A call that grew the heap, ran for an interrupt check or more, or is the 32nd since the last
    // measure (or, fuelled, used more than `MEASURE_EVERY_FUEL` since), is measured before it ends.
    if (!this.memoryExceeded && (this.ticks > 0 || --this.invocationsToMeasure <= 0 || this.heapGrew() || this.heap?.refused || this.fuelSinceMeasure > MEASURE_EVERY_FUEL)) this.overMemory();
    // An interrupted promise job becomes a rejection, not a job error: the budget tells.
    if (this.ticks > this.limits.cpuTicks || this.memoryExceeded) this.failWith('interrupted');
    const quiet = this.pendingHostCalls.size === 0 && !runtime.hasPendingJob();
    if (!invocation.finished && !quiet) return;
    this.current = null;
    // Work still pending after the reply is dropped with the context, as before reuse; so is a
    // context past its memory cap (its reply, if sent first, stands).
    if (invocation.failed || !quiet || this.memoryExceeded) this.dispose();
    invocation.host.idle();
  }

  private bindHost(): void {
    const context = this.context;
    const bind = (name: string, fn: (...args: QuickJSHandle[]) => QuickJSHandle | void) => {
      const handle = context.newFunction(name, (...args: QuickJSHandle[]) => this.outside<QuickJSHandle | void>(() => fn(...args), undefined));
      context.setProp(context.global, name, handle);
      handle.dispose();
    };
    bind('__respond', (text) => this.deliver(this.textOf(text)));
    bind('__fail', (text) => this.failWith(this.textOf(text)));
    /** A sync host call's JSON answer, or the Error it threw handed to the sandbox (thrown there). */
    const answer = (work: () => unknown) => {
      try {
        return context.newString(jsonText(work()));
      } catch (error) {
        return context.newError(error instanceof Error ? error.message : String(error));
      }
    };
    bind('__hostSync', (kindHandle, argsText) => {
      const host = this.current?.host;
      const args = JSON.parse(this.textOf(argsText)) as unknown[];
      const kind = context.getString(kindHandle);
      if (host?.permitsSync && !host.permitsSync(kind, args)) return context.newError(`${kind.slice(0, 32)} is not available here`);
      switch (kind) {
        case 'setHeader': {
          const headers = args[0];
          if (typeof headers !== 'object' || headers === null || Array.isArray(headers)) return context.newError('oData.setHeader takes an object of header names and values');
          host?.setHeader(headers as Record<string, string>);
          return context.newString('null');
        }
        case 'hash': {
          const [algorithm, text, encoding] = args as [string, string, string];
          if (!HASHES.has(algorithm)) return context.newError(`oCrypto.createHash: ${String(algorithm).slice(0, 32)} is not one of md5, sha1, sha256`);
          return context.newString(jsonText(createHash(algorithm).update(String(text)).digest(encoding === 'base64' ? 'base64' : 'hex')));
        }
        case 'log':
          host?.log(String(args[0]), String(args[1]).slice(0, 8192));
          return context.newString('null');
        case 'request': {
          // The running invocation's headers (JSON) or raw body (base64, as a JSON string), made now.
          const request = this.current?.request;
          if (!request || (args[0] !== 'headers' && args[0] !== 'raw')) return context.newError('the request is not available here');
          const text = args[0] === 'headers' ? request.headers() : JSON.stringify(request.raw());
          this.hostChars += text.length;
          return context.newString(text);
        }
        case 'clearTimer':
          this.timers.clear(Number(args[0]));
          return context.newString('null');
        case 'library':
          return answer(() => (args[0] === 'async' ? SANDBOX_ASYNC_SOURCE : this.packages.librarySource(String(args[0]))));
        case 'random': {
          const length = Number(args[0]);
          // Web Crypto's own cap per call.
          if (!Number.isSafeInteger(length) || length < 0 || length > 65_536) return context.newError('getRandomValues: at most 65536 bytes');
          this.hostChars += length;
          return context.newString(jsonText({ __bytes: randomBytes(length).toString('base64') }));
        }
        case 'rsa':
          return answer(() => {
            const [op, state, ...rest] = args as [string, unknown, ...unknown[]];
            const result = rsaCall(String(op), rsaStateOf(state), rest.map(decodeBytes));
            return { state: result.state, value: Buffer.isBuffer(result.value) ? { __bytes: result.value.toString('base64') } : result.value };
          });
        case 'gzip':
        case 'ungzip':
        case 'convert':
          return answer(() => ({ __bytes: bytesCall(kind, args, this.packages.iconv).toString('base64') }));
        default:
          return context.newError('unknown host call');
      }
    });
    bind('__host', (moduleHandle, methodHandle, argsHandle) => {
      const module = context.getString(moduleHandle);
      const method = context.getString(methodHandle);
      const argsText = this.textOf(argsHandle);
      const deferred = context.newPromise();
      const host = this.current?.host;
      this.pendingHostCalls.add(deferred);
      host?.wentAsync?.();
      const known = (Object.hasOwn(BRIDGED, module) && Object.hasOwn(BRIDGED[module]!, method)) || (module === 'oHttp' && (method === 'get' || method === 'post'));
      // Module calls run on the main thread: their count and their arguments in flight are bounded.
      const chars = module === 'timer' ? 0 : argsText.length;
      const refused =
        chars > MAX_CALL_ARGS_CHARS
          ? `a module call's arguments may hold at most ${MAX_CALL_ARGS_CHARS} characters`
          : chars > 0 && (this.pendingHostCalls.size - this.timers.size > MAX_CALLS_IN_FLIGHT || this.pendingCallChars + chars > MAX_CALL_CHARS_IN_FLIGHT)
            ? `at most ${MAX_CALLS_IN_FLIGHT} module calls (${MAX_CALL_CHARS_IN_FLIGHT} characters of arguments) may wait at once`
            : null;
      this.pendingCallChars += refused ? 0 : chars;
      const args = refused ? [] : (JSON.parse(argsText) as unknown[]);
      const answer = refused
        ? Promise.reject({ code: 11005, error: refused })
        : module === 'timer'
          ? this.timers.wait(Number(args[0]), Number(args[1]))
          : !host
            ? Promise.reject({ code: 11033, error: 'module calls are made during an invocation' })
            : known
              ? host.call(module, method, args)
              : Promise.reject({ code: 11005, error: `modules.${module.slice(0, 32)}.${method.slice(0, 32)} does not exist` });
      answer
        .finally(() => {
          if (!refused) this.pendingCallChars -= chars;
        })
        .then(
          (value) => ({ ok: value }),
          (error: unknown) => ({ err: isCoded(error) ? error : { code: 11033, error: error instanceof Error ? error.message : String(error) } }),
        )
        .then((answer) => {
          if (!this.pendingHostCalls.delete(deferred)) return;
          const text = context.newString(JSON.stringify(answer));
          deferred.resolve(text);
          text.dispose();
          deferred.dispose();
          this.pump();
        });
      return deferred.handle;
    });
  }
}

/** `{__bytes: base64}` as a Buffer; any other value as it is. */
function decodeBytes(value: unknown): unknown {
  return typeof value === 'object' && value !== null && typeof (value as { __bytes?: unknown }).__bytes === 'string' ? Buffer.from((value as { __bytes: string }).__bytes, 'base64') : value;
}

/** Decodes the `{__bytes: base64}` the prelude sends for a Uint8Array; strings pass. */
function bytesArg(value: unknown): string | Buffer {
  if (typeof value === 'object' && value !== null && typeof (value as { __bytes?: unknown }).__bytes === 'string') return Buffer.from((value as { __bytes: string }).__bytes, 'base64');
  if (typeof value === 'string') return value;
  throw new TypeError('expected a string or a Uint8Array');
}

/** oGzip and oEncodeing, run in the worker (synchronous zlib, the same caps as the host modules). */
function bytesCall(kind: string, args: readonly unknown[], iconv: IconvLite | undefined): Buffer {
  const input = bytesArg(args[0]);
  if (kind === 'gzip') return gzipSync(typeof input === 'string' ? Buffer.from(input) : input);
  if (kind === 'ungzip') {
    if (typeof input === 'string') throw new TypeError('oGzip.ungzip takes bytes');
    try {
      return gunzipSync(input, { maxOutputLength: MAX_INFLATED });
    } catch (error) {
      throw new Error(`oGzip.ungzip: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return convertText(input, String(args[1] ?? 'utf8'), args[2] === undefined || args[2] === null ? undefined : String(args[2]), iconv);
}

function isCoded(error: unknown): error is { code: number; error: string } {
  return typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'number' && typeof (error as { error?: unknown }).error === 'string';
}

