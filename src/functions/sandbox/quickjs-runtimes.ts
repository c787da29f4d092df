import { isSvcError, svcError } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import type { Json } from '../../core/wire-values.js';
import type { FunctionModules } from '../contract.js';
import type { FunctionLogs } from '../function-logs.js';
import { replyProblem } from '../function-response.js';
import type { FunctionTimer } from '../function-runner.js';
import type { FunctionRuntime, RuntimeInvocation } from '../runtime.js';
import { sandboxPackages } from '../sandbox-libraries.js';
import { InlineSandbox } from './inline-sandbox.js';
import { loadQuickJs, newQuickJsInstance, syntaxErrorOf } from './quickjs-sandbox.js';
import { type SandboxRun, SandboxPool } from './sandbox-pool.js';
import type { SandboxFunction } from './warm-contexts.js';
import { type SandboxRequest, lazySandboxRequest, sandboxRequestText } from './sandbox-request.js';

/** What both QuickJS runtimes share: logs, the warm-context switch. */
export interface QuickJsRuntimeOptions {
  readonly logs: FunctionLogs;
  readonly logger: Logger;
  /** Keep a function's QuickJS context between its invocations (its globals persist); false: fresh each time. */
  readonly keepWarm: boolean;
}

export interface WorkerQuickJsOptions extends QuickJsRuntimeOptions {
  /** Worker threads (started on first use). */
  readonly workers: number;
  /** Invocations waiting for a worker: all applications together, and one application's. */
  readonly maxQueued?: number;
  readonly maxQueuedPerApp?: number;
  readonly timer: FunctionTimer;
  /** Niceness of the worker threads (background-priority.ts). */
  readonly niceness?: number;
}

/** The promise form of a module method (callback-style methods answer one without their callback). */
async function callModule(modules: FunctionModules, module: string, method: string, args: unknown[]): Promise<Json> {
  const target = (modules as unknown as Record<string, Record<string, (...a: unknown[]) => unknown> | undefined>)[module];
  const fn = target?.[method];
  if (typeof fn !== 'function') throw svcError('invalidParameter', `modules.${module.slice(0, 32)}.${method.slice(0, 32)} does not exist`);
  return (await fn.apply(target, args)) as Json;
}

/** The function as a sandbox keys it: warm contexts by application and name, replaced when the version changes. */
function sandboxFunction(invocation: RuntimeInvocation, keepWarm: boolean): SandboxFunction {
  return { key: keepWarm ? `${invocation.caller.app.applicationId}\u0000${invocation.fn.name}` : null, version: invocation.fn.version, source: invocation.fn.source };
}

/** The invocation's request for a sandbox: its headers read from the request only if the function reads them. */
function sandboxRequestOf({ request }: RuntimeInvocation): SandboxRequest {
  return lazySandboxRequest({ method: request.method, body: request.body, query: request.query, path: request.path ?? null }, () => request.headers, request.raw);
}

/**
 * How a sandbox reaches the service for one invocation: module calls, `oData.setHeader`, logs, and
 * its reply, checked (status, header names and values: 11220) before any of it reaches the response.
 */
function sandboxRun(invocation: RuntimeInvocation, logs: FunctionLogs, done: () => void, failed: (error: unknown) => void): SandboxRun {
  const { fn, modules, response, limits } = invocation;
  const appId = invocation.caller.app.applicationId;
  return {
    call: (module, method, args) => callModule(modules, module, method, args),
    setHeader: (headers) => modules.oData.setHeader(headers),
    log: (level, message) => logs.append(appId, fn.name, level, message),
    send: (reply) => {
      const problem = replyProblem(reply.status, reply.headers);
      if (problem) throw svcError('functionReplyInvalid', fn.name, problem);
      for (const [header, value] of Object.entries(reply.headers)) response.setHeader(header, value);
      if (reply.status !== 200) response.status(reply.status);
      response.send(reply.value);
      done();
    },
    fail: (error) => failed(isSvcError(error) && error.errorName === 'functionCpuExceeded' ? svcError('functionCpuExceeded', fn.name, limits.cpuTicks) : error),
    started: invocation.started,
  };
}

/** The syntax check of a source (11201 with its line), on the shared QuickJS module (11200 when the optional peers are missing). */
async function checkSyntax(name: string, source: string): Promise<void> {
  const syntax = syntaxErrorOf(await loadQuickJs(), source);
  if (syntax) throw svcError('functionSyntax', name, syntax);
}

/**
 * Deployed JavaScript on worker threads (sandbox-pool.ts): every invocation it is given runs there,
 * each application's queue served in turn. The runtime of last resort for `node`.
 */
export function workerQuickJsRuntime(options: WorkerQuickJsOptions): FunctionRuntime {
  let pool: SandboxPool | null = null;
  return {
    name: 'quickjs-workers',
    language: 'node',
    check: checkSyntax,
    invoke(invocation) {
      return new Promise((resolve, reject) => {
        const run = sandboxRun(invocation, options.logs, () => resolve('done'), reject);
        pool ??= new SandboxPool({
          size: options.workers,
          timer: options.timer,
          logger: options.logger,
          ...(options.maxQueued ? { maxQueued: options.maxQueued } : {}),
          ...(options.maxQueuedPerApp ? { maxQueuedPerApp: options.maxQueuedPerApp } : {}),
          ...(options.niceness !== undefined ? { niceness: options.niceness } : {}),
        });
        const job = {
          app: invocation.caller.app.applicationId,
          fn: sandboxFunction(invocation, options.keepWarm),
          requestText: sandboxRequestText(sandboxRequestOf(invocation)),
          limits: invocation.limits,
          deadlineMs: invocation.deadlineMs,
          maxWaitMs: invocation.maxWaitMs,
        };
        pool.run(job, run);
      });
    },
    async close() {
      await pool?.close();
    },
  };
}

/** A sandbox that runs an invocation on the main thread when it can (QuickJS inline, isolated-vm). */
export interface InlineRunner {
  tryRun(fn: SandboxFunction, request: SandboxRequest, limits: RuntimeInvocation['limits'], run: SandboxRun): boolean;
}

/**
 * One invocation on an inline sandbox: `declined` when it must run on a worker; `done` at once when
 * it sent during the run (most do), else a promise of its outcome (failed, or sent never: the
 * runner's timeout ends it).
 */
export function runInline(ready: InlineRunner | null, invocation: RuntimeInvocation, logs: FunctionLogs): 'done' | 'declined' | Promise<'done'> {
  if (!ready) return 'declined';
  let outcome: 'done' | { readonly error: unknown } | undefined;
  let later: { readonly resolve: (outcome: 'done') => void; readonly reject: (error: unknown) => void } | undefined;
  const run = sandboxRun(
    invocation,
    logs,
    () => (later ? later.resolve('done') : (outcome ??= 'done')),
    (error) => (later ? later.reject(error) : (outcome ??= { error })),
  );
  if (!ready.tryRun(sandboxFunction(invocation, true), sandboxRequestOf(invocation), invocation.limits, run)) return 'declined';
  // Ran inline: it started (a function that returned without sending now waits for its timeout).
  invocation.started();
  if (outcome === 'done') return 'done';
  if (outcome) return Promise.reject(outcome.error);
  return new Promise<'done'>((resolve, reject) => {
    later = { resolve, reject };
  });
}

/**
 * Deployed JavaScript on the main thread, for a warm invocation that is over at once (D130, D142):
 * a fuelled QuickJS instance tries it; one that must wait (a module call, a timer) or runs out of
 * fuel is declined unseen, for the worker runtime to run. Needs warm contexts.
 */
export function inlineQuickJsRuntime(options: QuickJsRuntimeOptions): FunctionRuntime {
  let inline: InlineSandbox | null | undefined;
  let loading: Promise<InlineSandbox | null> | null = null;
  let closed = false;
  /** The inline sandbox (its instance loads on first use; the first invocations wait for it), or null when QuickJS is missing. */
  const sandbox = (): InlineSandbox | null | Promise<InlineSandbox | null> => {
    let previous: InlineSandbox | undefined;
    if (inline?.retired) {
      // Its heap grew too large: a new instance takes over (the next calls wait for it).
      previous = inline;
      inline = undefined;
      loading = null;
    }
    if (inline !== undefined) return inline;
    loading ??= newQuickJsInstance(import.meta.url, { fuel: true }).then(
      (quickjs) => (inline = closed ? null : new InlineSandbox(quickjs, sandboxPackages(import.meta.url), options.logger, previous)),
      (error: unknown) => {
        options.logger.warn('functions: inline runs are off: their QuickJS instance did not load', { error: error instanceof Error ? error.message : String(error) });
        return (inline = null);
      },
    );
    return loading;
  };
  const invokeNow = (invocation: RuntimeInvocation): 'done' | 'declined' | Promise<'done' | 'declined'> => {
    if (!options.keepWarm) return 'declined';
    const pending = sandbox();
    return pending instanceof Promise ? pending.then((ready) => runInline(ready, invocation, options.logs)) : runInline(pending, invocation, options.logs);
  };
  return inlineRuntime('quickjs-inline', invokeNow, () => {
    closed = true;
    inline?.dispose();
  });
}

/** An inline runtime of `node` functions (QuickJS, isolated-vm): `invokeNow` answers at once where it can, `invoke` is its promise. */
export function inlineRuntime(name: string, invokeNow: NonNullable<FunctionRuntime['invokeNow']>, close: () => void): FunctionRuntime {
  return {
    name,
    language: 'node',
    check: checkSyntax,
    invokeNow,
    async invoke(invocation) {
      return invokeNow(invocation);
    },
    async close() {
      close();
    },
  };
}
