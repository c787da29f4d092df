import { createRequire } from 'node:module';
import type { QuickJSContext, QuickJSHandle, QuickJSRuntime, QuickJSWASMModule } from 'quickjs-emscripten-core';
import { createHash } from 'node:crypto';
import { svcError } from '../../core/errors.js';
import type { Json } from '../../core/wire-values.js';
import { SANDBOX_PRELUDE } from './sandbox-prelude.js';
import { gunzipSync, gzipSync } from 'node:zlib';
import { MAX_INFLATED, encodingModule } from '../util-modules.js';

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
const BRIDGED: Readonly<Record<string, Readonly<Record<string, 'callback' | 'promise'>>>> = {
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

const HASHES: ReadonlySet<string> = new Set(['md5', 'sha1', 'sha256']);

let loading: Promise<QuickJSWASMModule> | null = null;

/**
 * Loads QuickJS (wasm, once per thread): the optional peers quickjs-emscripten-core and
 * @jitl/quickjs-wasmfile-release-sync, resolved from `resolveFrom` (a file path or URL).
 */
export function loadQuickJs(resolveFrom: string = import.meta.url): Promise<QuickJSWASMModule> {
  loading ??= (async () => {
    const require = createRequire(resolveFrom);
    let core: typeof import('quickjs-emscripten-core');
    let variant: unknown;
    try {
      core = require('quickjs-emscripten-core') as typeof import('quickjs-emscripten-core');
      const loaded = require('@jitl/quickjs-wasmfile-release-sync') as { default?: unknown };
      variant = loaded.default ?? loaded;
    } catch (cause) {
      const error = svcError('functionRuntimeMissing', 'run `npm install quickjs-emscripten-core @jitl/quickjs-wasmfile-release-sync`');
      (error as Error).cause = cause;
      throw error;
    }
    return core.newQuickJSWASMModuleFromVariant(variant as Parameters<typeof core.newQuickJSWASMModuleFromVariant>[0]);
  })().catch((error: unknown) => {
    loading = null;
    throw error;
  });
  return loading;
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
}

/**
 * Runs deployed source in a QuickJS runtime of its own (a wasm heap: no `process`, `require`, file
 * system or host object is reachable; prototypes changed by one invocation are gone with it). The
 * memory cap and the CPU budget stop runaway code; module calls cross the boundary as JSON. The
 * runtime is freed once the function sent or failed and nothing is pending, or once it can no longer
 * send (left to the runner's timeout, as a function that never sends).
 */
export function runInQuickJs(quickjs: QuickJSWASMModule, source: string, request: Json, limits: SandboxLimits, host: SandboxHost): void {
  let runtime: QuickJSRuntime | null = quickjs.newRuntime();
  let ticks = 0;
  let pendingHostCalls = 0;
  let finished = false;
  runtime.setMemoryLimit(limits.memoryBytes);
  runtime.setMaxStackSize(limits.stackBytes);
  runtime.setInterruptHandler(() => ++ticks > limits.cpuTicks);
  const context: QuickJSContext = runtime.newContext();

  const timers = sandboxTimers();
  const dispose = () => {
    if (!runtime) return;
    const rt = runtime;
    runtime = null;
    timers.clearAll();
    context.dispose();
    rt.dispose();
    host.idle();
  };
  const failWith = (message: string) => {
    if (finished) return;
    finished = true;
    host.fail(message, ticks > limits.cpuTicks);
  };
  /** Runs queued promise jobs; then frees the runtime once nothing more can happen. */
  const pump = () => {
    if (!runtime) return;
    const jobs = runtime.executePendingJobs();
    if (jobs.error) {
      const error = context.dump(jobs.error) as { message?: string } | null;
      jobs.error.dispose();
      failWith(error?.message ?? 'error in a promise job');
    }
    // An interrupted promise job becomes a rejection, not a job error: the budget tells.
    if (ticks > limits.cpuTicks) failWith('interrupted');
    if (finished || (pendingHostCalls === 0 && !runtime.hasPendingJob())) dispose();
  };
  const bind = (name: string, fn: (...args: QuickJSHandle[]) => QuickJSHandle | void) => {
    const handle = context.newFunction(name, fn);
    context.setProp(context.global, name, handle);
    handle.dispose();
  };
  bind('__respond', (text) => {
    if (finished) return;
    finished = true;
    host.send(JSON.parse(context.getString(text)) as { value: Json; status: number; headers: Record<string, string> });
  });
  bind('__fail', (text) => failWith(context.getString(text)));
  bind('__hostSync', (kindHandle, argsText) => {
    const args = JSON.parse(context.getString(argsText)) as unknown[];
    const kind = context.getString(kindHandle);
    switch (kind) {
      case 'setHeader':
        host.setHeader(args[0] as Record<string, string>);
        return context.newString('null');
      case 'hash': {
        const [algorithm, text, encoding] = args as [string, string, string];
        if (!HASHES.has(algorithm)) return context.newError(`oCrypto.createHash: ${String(algorithm).slice(0, 32)} is not one of md5, sha1, sha256`);
        return context.newString(jsonText(createHash(algorithm).update(String(text)).digest(encoding === 'base64' ? 'base64' : 'hex')));
      }
      case 'log':
        host.log(String(args[0]), String(args[1]).slice(0, 8192));
        return context.newString('null');
      case 'clearTimer':
        timers.clear(Number(args[0]));
        return context.newString('null');
      case 'gzip':
      case 'ungzip':
      case 'convert':
        try {
          return context.newString(jsonText({ __bytes: bytesCall(kind, args).toString('base64') }));
        } catch (error) {
          return context.newError(error instanceof Error ? error.message : String(error));
        }
      default:
        return context.newError('unknown host call');
    }
  });
  bind('__host', (moduleHandle, methodHandle, argsHandle) => {
    const module = context.getString(moduleHandle);
    const method = context.getString(methodHandle);
    const args = JSON.parse(context.getString(argsHandle)) as unknown[];
    const deferred = context.newPromise();
    pendingHostCalls++;
    const known = (Object.hasOwn(BRIDGED, module) && Object.hasOwn(BRIDGED[module]!, method)) || (module === 'oHttp' && (method === 'get' || method === 'post'));
    const answer = module === 'timer' ? timers.wait(Number(args[0]), Number(args[1])) : known ? host.call(module, method, args) : Promise.reject({ code: 11005, error: `modules.${module.slice(0, 32)}.${method.slice(0, 32)} does not exist` });
    answer
      .then(
        (value) => ({ ok: value }),
        (error: unknown) => ({ err: isCoded(error) ? error : { code: 11033, error: error instanceof Error ? error.message : String(error) } }),
      )
      .then((answer) => {
        pendingHostCalls--;
        if (!runtime) return deferred.dispose();
        const text = context.newString(JSON.stringify(answer));
        deferred.resolve(text);
        text.dispose();
        deferred.dispose();
        pump();
      });
    return deferred.handle;
  });
  const setText = (name: string, text: string) => {
    const handle = context.newString(text);
    context.setProp(context.global, name, handle);
    handle.dispose();
  };
  setText('__bridgedText', JSON.stringify(BRIDGED));
  setText('__request', JSON.stringify(request));
  const run = (code: string, file: string): boolean => {
    if (!runtime) return false;
    const result = context.evalCode(code, file);
    if (!result.error) {
      result.value.dispose();
      return true;
    }
    const error = context.dump(result.error) as { message?: string } | null;
    result.error.dispose();
    failWith(error?.message ?? String(error));
    return false;
  };
  if (run('globalThis.__bridged = JSON.parse(globalThis.__bridgedText); delete globalThis.__bridgedText;', 'bridge.js') && run(SANDBOX_PRELUDE, 'prelude.js') && run(source, 'function.js')) {
    run('__start()', 'start.js');
  }
  pump();
}

/** Longest a function's timer may wait: the runner's timeout ends the invocation first anyway. */
const MAX_TIMER_MS = 60_000;
/** Timers one invocation may have waiting at once. */
const MAX_TIMERS = 1000;

/**
 * A deployed function's `setTimeout` and `setInterval`: each wait is a pending host call resolved by
 * a timer of the worker, so the runtime stays alive while timers wait and is freed with them; a
 * cleared timer's wait ends at once. Bounded in count and length.
 */
function sandboxTimers() {
  const waiting = new Map<number, { readonly handle: ReturnType<typeof setTimeout>; readonly done: (value: Json) => void }>();
  return {
    wait(ms: number, id: number): Promise<Json> {
      if (waiting.size >= MAX_TIMERS) return Promise.reject({ code: 11005, error: `at most ${MAX_TIMERS} timers may wait at once` });
      const delay = Number.isFinite(ms) ? Math.min(Math.max(0, ms), MAX_TIMER_MS) : 0;
      return new Promise<Json>((resolve) => {
        const done = (value: Json) => {
          waiting.delete(id);
          resolve(value);
        };
        waiting.set(id, { handle: setTimeout(() => done(true), delay), done });
      });
    },
    clear(id: number): void {
      const timer = waiting.get(id);
      if (!timer) return;
      clearTimeout(timer.handle);
      timer.done(false);
    },
    clearAll(): void {
      for (const timer of waiting.values()) clearTimeout(timer.handle);
      waiting.clear();
    },
  };
}

/** Decodes the `{__bytes: base64}` the prelude sends for a Uint8Array; strings pass. */
function bytesArg(value: unknown): string | Buffer {
  if (typeof value === 'object' && value !== null && typeof (value as { __bytes?: unknown }).__bytes === 'string') return Buffer.from((value as { __bytes: string }).__bytes, 'base64');
  if (typeof value === 'string') return value;
  throw new TypeError('expected a string or a Uint8Array');
}

/** oGzip and oEncodeing, run in the worker (synchronous zlib, the same caps as the host modules). */
function bytesCall(kind: string, args: readonly unknown[]): Buffer {
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
  return encodingModule.convert(input, String(args[1] ?? 'utf8'), args[2] === undefined || args[2] === null ? undefined : String(args[2]));
}

function isCoded(error: unknown): error is { code: number; error: string } {
  return typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'number' && typeof (error as { error?: unknown }).error === 'string';
}

