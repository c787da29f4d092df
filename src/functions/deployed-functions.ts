import type { Caller } from '../app/caller.js';
import { svcError } from '../core/errors.js';
import type { CloudCodeStore, DeployedSource } from './cloud-code-store.js';
import type { QueuedFunction, RunnableFunction } from './function-runner.js';
import type { FunctionRuntime, RuntimeInvocation } from './runtime.js';
import type { SandboxLimits } from './sandbox/quickjs-sandbox.js';

export interface DeployedFunctionsDeps {
  readonly store: CloudCodeStore;
  /**
   * The runtimes, tried in this order for their language (an inline runtime may decline, handing the
   * invocation to the next): the host's own first, then QuickJS inline, QuickJS on workers, Java.
   */
  readonly runtimes: readonly FunctionRuntime[];
  /** The sandbox's limits for the caller's application (its own `featureSettings.functions` over the service's). */
  readonly limitsFor: (caller: Caller) => SandboxLimits;
  /** How long whatever runs one invocation of the caller's application may stay busy before it is replaced. */
  readonly deadlineFor: (caller: Caller) => number;
  /** How long an invocation of the caller's application may wait to start (its timeout) before it answers 11221. */
  readonly maxWaitFor: (caller: Caller) => number;
  /** Names the host defines: they cannot be deployed over. */
  readonly hostNames: ReadonlySet<string>;
}

const MAX_SOURCE_BYTES = 256 * 1024;
const NAME = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;

/**
 * Functions deployed as source (`/1/cloudCode`): names, languages and sizes checked, sources kept in
 * storage, and each invocation handed to the runtimes of its language (runtime.ts), under the same
 * runner rules as host functions. What compiles and runs a source is the runtimes' business.
 */
export class DeployedFunctions {
  constructor(private readonly deps: DeployedFunctionsDeps) {}

  /** The runner's lookup: the deployed function of the caller's application, if any (without waiting when its sources are cached). */
  lookup(caller: Caller, name: string): RunnableFunction | undefined | Promise<RunnableFunction | undefined> {
    const cached = this.deps.store.cached(caller.app.namespace, name);
    if (cached !== null) return cached && this.functionOf(caller, cached);
    return this.deps.store.get(caller.app.namespace, name).then((deployed) => deployed && this.functionOf(caller, deployed));
  }

  /** Validates (name, language, size, and the language's own check: syntax with its line, rules) and stores a source. */
  async deploy(caller: Caller, name: string, language: unknown, source: unknown): Promise<DeployedSource> {
    if (!NAME.test(name)) throw svcError('functionNameInvalid', name.slice(0, 64));
    if (this.deps.hostNames.has(name)) throw svcError('functionHostDefined', name);
    if (language !== 'node' && language !== 'java') throw svcError('functionSourceInvalid', 'language must be "node" or "java"');
    if (typeof source !== 'string' || source.trim() === '') throw svcError('functionSourceInvalid', 'source must be the function\'s text');
    if (Buffer.byteLength(source) > MAX_SOURCE_BYTES) throw svcError('functionSourceInvalid', `source is larger than ${MAX_SOURCE_BYTES} bytes`);
    await this.runtimesOf(language)[0]!.check(name, source);
    return language === 'java' ? this.deps.store.put(caller.app.namespace, name, source, 'java') : this.deps.store.put(caller.app.namespace, name, source);
  }

  async close(): Promise<void> {
    for (const runtime of this.deps.runtimes) await runtime.close();
  }

  /** The runtimes of a language, in order; 11209 (Java) or 11200 (JavaScript) when none is on. */
  private runtimesOf(language: string): readonly FunctionRuntime[] {
    const runtimes = this.deps.runtimes.filter((runtime) => runtime.language === language);
    if (runtimes.length > 0) return runtimes;
    if (language === 'java') throw svcError('javaUnavailable', 'Java functions are turned off (functions.java: false)');
    throw svcError('functionRuntimeMissing', 'no runtime runs deployed JavaScript');
  }

  private functionOf(caller: Caller, deployed: DeployedSource): QueuedFunction {
    const runtimes = this.runtimesOf(deployed.language);
    const fn = { name: deployed.name, source: deployed.source, version: deployed.updatedAt };
    const limits = this.deps.limitsFor(caller);
    const deadlineMs = this.deps.deadlineFor(caller);
    const maxWaitMs = this.deps.maxWaitFor(caller);
    return {
      queued: (request, response, modules, started) => tryRuntimes(runtimes, 0, { caller, fn, request, response, modules, started, limits, deadlineMs, maxWaitMs }, deployed.language),
    };
  }
}

/**
 * Hands the invocation to `runtimes[from]`, then to the next while each declines. A runtime that
 * answers at once (an inline run) adds no promise.
 */
function tryRuntimes(runtimes: readonly FunctionRuntime[], from: number, invocation: RuntimeInvocation, language: string): void | Promise<void> {
  for (let at = from; at < runtimes.length; at++) {
    const runtime = runtimes[at]!;
    const outcome = runtime.invokeNow ? runtime.invokeNow(invocation) : runtime.invoke(invocation);
    if (outcome === 'done') return;
    if (outcome === 'declined') continue;
    return outcome.then((settled) => (settled === 'done' ? undefined : tryRuntimes(runtimes, at + 1, invocation, language)));
  }
  throw svcError('functionRuntimeMissing', `every runtime of ${language} declined ${invocation.fn.name}`);
}
