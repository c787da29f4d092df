import type { QuickJSWASMModule } from 'quickjs-emscripten-core';
import type { Caller } from '../app/caller.js';
import { isSvcError, svcError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { Json } from '../core/wire-values.js';
import type { CloudCodeStore, DeployedSource } from './cloud-code-store.js';
import type { FunctionModules, FunctionRequest, FunctionResponse } from './contract.js';
import { replyProblem } from './function-response.js';
import type { FunctionLogs } from './function-logs.js';
import type { FunctionTimer, QueuedFunction, RunnableFunction } from './function-runner.js';
import type { JavaFunctions } from './java/java-functions.js';
import { InlineSandbox } from './sandbox/inline-sandbox.js';
import { type SandboxLimits, loadQuickJs, newQuickJsInstance, syntaxErrorOf } from './sandbox/quickjs-sandbox.js';
import { type SandboxRun, SandboxPool } from './sandbox/sandbox-pool.js';
import { sandboxRequestText } from './sandbox/sandbox-prelude.js';
import { sandboxPackages } from './sandbox-libraries.js';

export interface DeployedFunctionsDeps {
  readonly store: CloudCodeStore;
  readonly logs: FunctionLogs;
  /** The sandbox's limits for the caller's application (its own `featureSettings.functions` over the service's). */
  readonly limitsFor: (caller: Caller) => SandboxLimits;
  /** Worker threads running deployed functions (default 2), started on first use. */
  readonly workers: number;
  /** Keep a function's QuickJS context between its invocations (its globals persist); false: fresh each time. */
  readonly keepWarm: boolean;
  /** Run warm invocations that answer at once on the main thread (inline-sandbox.ts); false: always on a worker. */
  readonly inline: boolean;
  /** How long a worker may stay busy with one invocation of the caller's application before it is replaced. */
  readonly deadlineFor: (caller: Caller) => number;
  /** How long an invocation of the caller's application may wait for a worker (its timeout) before it answers 11221. */
  readonly maxWaitFor: (caller: Caller) => number;
  /** Invocations waiting for a worker: all applications together, and one application's. */
  readonly maxQueued?: number;
  readonly maxQueuedPerApp?: number;
  readonly timer: FunctionTimer;
  readonly logger: Logger;
  /** Names the host defines: they cannot be deployed over. */
  readonly hostNames: ReadonlySet<string>;
  /** Java functions (java/java-functions.ts); null turns `"language":"java"` into 11209. */
  readonly java: JavaFunctions | null;
}

const MAX_SOURCE_BYTES = 256 * 1024;
const NAME = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;

/** The promise form of a module method (callback-style methods answer one without their callback). */
async function callModule(modules: FunctionModules, module: string, method: string, args: unknown[]): Promise<Json> {
  const target = (modules as unknown as Record<string, Record<string, (...a: unknown[]) => unknown> | undefined>)[module];
  const fn = target?.[method];
  if (typeof fn !== 'function') throw svcError('invalidParameter', `modules.${module.slice(0, 32)}.${method.slice(0, 32)} does not exist`);
  return (await fn.apply(target, args)) as Json;
}

/**
 * Functions deployed as source (`/1/cloudCode`): checked for syntax when saved, kept in storage,
 * run in QuickJS on worker threads (sandbox-pool.ts) with the same runner rules as host functions.
 */
export class DeployedFunctions {
  private pool: SandboxPool | null = null;
  private quickjs: Promise<QuickJSWASMModule> | null = null;
  /** Inline runs (inline-sandbox.ts): undefined until first asked for and loaded, null when off. */
  private inline: InlineSandbox | null | undefined;
  private inlineLoading: Promise<InlineSandbox | null> | null = null;
  private closed = false;

  constructor(private readonly deps: DeployedFunctionsDeps) {}

  /** The runner's lookup: the deployed function of the caller's application, if any. */
  async lookup(caller: Caller, name: string): Promise<RunnableFunction | undefined> {
    const deployed = await this.deps.store.get(caller.app.namespace, name);
    if (!deployed) return undefined;
    if (deployed.language === 'java') {
      if (!this.deps.java) throw svcError('javaUnavailable', 'Java functions are turned off (functions.java: false)');
      return this.deps.java.functionOf(caller, name, deployed.source, this.deps.deadlineFor(caller));
    }
    return this.functionOf(caller.app.applicationId, deployed, this.deps.limitsFor(caller), this.deps.deadlineFor(caller), this.deps.maxWaitFor(caller));
  }

  /** Validates (name, language, size, syntax with its line) and stores a source. */
  async deploy(caller: Caller, name: string, language: unknown, source: unknown): Promise<DeployedSource> {
    if (!NAME.test(name)) throw svcError('functionNameInvalid', name.slice(0, 64));
    if (this.deps.hostNames.has(name)) throw svcError('functionHostDefined', name);
    if (language !== 'node' && language !== 'java') throw svcError('functionSourceInvalid', 'language must be "node" or "java"');
    if (typeof source !== 'string' || source.trim() === '') throw svcError('functionSourceInvalid', 'source must be the function\'s text');
    if (Buffer.byteLength(source) > MAX_SOURCE_BYTES) throw svcError('functionSourceInvalid', `source is larger than ${MAX_SOURCE_BYTES} bytes`);
    if (language === 'java') {
      if (!this.deps.java) throw svcError('javaUnavailable', 'Java functions are turned off (functions.java: false)');
      await this.deps.java.check(name, source);
      return this.deps.store.put(caller.app.namespace, name, source, 'java');
    }
    const syntax = syntaxErrorOf(await this.runtime(), source);
    if (syntax) throw svcError('functionSyntax', name, syntax);
    return this.deps.store.put(caller.app.namespace, name, source);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.inline?.dispose();
    await this.pool?.close();
    await this.deps.java?.close();
  }

  private runtime(): Promise<QuickJSWASMModule> {
    this.quickjs ??= loadQuickJs().catch((error: unknown) => {
      this.quickjs = null;
      throw error;
    });
    return this.quickjs;
  }

  /**
   * The inline sandbox (its QuickJS instance loads on first use; the first invocations wait for it,
   * so a function's warm state does not start on a worker just because the instance was loading),
   * or null when inline runs are off or QuickJS is missing (the workers answer the coded error).
   */
  private inlineSandbox(): InlineSandbox | null | Promise<InlineSandbox | null> {
    if (!this.deps.inline || !this.deps.keepWarm) return null;
    let previous: InlineSandbox | undefined;
    if (this.inline?.retired) {
      // Its heap grew too large: a new instance takes over (the next calls wait for it).
      previous = this.inline;
      this.inline = undefined;
      this.inlineLoading = null;
    }
    if (this.inline !== undefined) return this.inline;
    this.inlineLoading ??= newQuickJsInstance(import.meta.url, { fuel: true }).then(
      (quickjs) => (this.inline = this.closed ? null : new InlineSandbox(quickjs, sandboxPackages(import.meta.url), this.deps.logger, previous)),
      (error: unknown) => {
        this.deps.logger.warn('functions: inline runs are off: their QuickJS instance did not load', { error: error instanceof Error ? error.message : String(error) });
        return (this.inline = null);
      },
    );
    return this.inlineLoading;
  }

  private functionOf(appId: string, deployed: DeployedSource, limits: SandboxLimits, deadlineMs: number, maxWaitMs: number): QueuedFunction {
    const { logs } = this.deps;
    const queued = async (request: FunctionRequest, response: FunctionResponse, modules: FunctionModules, started: () => void): Promise<void> => {
      const pending = this.inlineSandbox();
      const inline = pending instanceof Promise ? await pending : pending;
      return new Promise<void>((resolve, reject) => {
        const fn = { key: this.deps.keepWarm ? `${appId}\u0000${deployed.name}` : null, version: deployed.updatedAt, source: deployed.source };
        const requestText = sandboxRequestText({ method: request.method, body: request.body, query: request.query, path: request.path ?? null }, request.headers, request.raw);
        const run: SandboxRun = {
          call: (module, method, args) => callModule(modules, module, method, args),
          setHeader: (headers) => modules.oData.setHeader(headers),
          log: (level, message) => logs.append(appId, deployed.name, level, message),
          // What crossed from the sandbox is checked before any of it reaches the response.
          send: (reply) => {
            const problem = replyProblem(reply.status, reply.headers);
            if (problem) throw svcError('functionReplyInvalid', deployed.name, problem);
            for (const [header, value] of Object.entries(reply.headers)) response.setHeader(header, value);
            if (reply.status !== 200) response.status(reply.status);
            response.send(reply.value);
            resolve();
          },
          fail: (error) => reject(isSvcError(error) && error.errorName === 'functionCpuExceeded' ? svcError('functionCpuExceeded', deployed.name, limits.cpuTicks) : error),
          started,
        };
        // Ran inline: it started (a function that returned without sending now waits for its timeout).
        if (inline?.tryRun(fn, requestText, limits, run)) return started();
        this.pool ??= new SandboxPool({ size: this.deps.workers, timer: this.deps.timer, logger: this.deps.logger, ...(this.deps.maxQueued ? { maxQueued: this.deps.maxQueued } : {}), ...(this.deps.maxQueuedPerApp ? { maxQueuedPerApp: this.deps.maxQueuedPerApp } : {}) });
        this.pool.run({ app: appId, fn, requestText, limits, deadlineMs, maxWaitMs }, run);
      });
    };
    return { queued };
  }
}
