import type { Caller } from '../app/caller.js';
import type { FunctionModules, FunctionRequest, FunctionResponse } from './contract.js';
import type { SandboxLimits } from './sandbox/quickjs-sandbox.js';

/** A deployed source, as a runtime receives it. */
export interface DeployedFunctionSource {
  readonly name: string;
  readonly source: string;
  /** When it was deployed (epoch ms): changes with every deployment, so a runtime may key compiled or warm state by it. */
  readonly version: number;
}

/**
 * One invocation handed to a runtime: who calls, which function, the request, and how it reaches
 * the service (`modules`, bound to the caller) and answers (`response`). The runner has already
 * checked suspension and the concurrency cap, and times the invocation out from `started()`.
 */
export interface RuntimeInvocation {
  readonly caller: Caller;
  readonly fn: DeployedFunctionSource;
  readonly request: FunctionRequest;
  readonly response: FunctionResponse;
  readonly modules: FunctionModules;
  /** Call when the invocation starts running (after any wait for a free worker): its timeout counts from here. */
  readonly started: () => void;
  /** The application's sandbox limits (heap, CPU ticks, stack); a runtime applies those it can. */
  readonly limits: SandboxLimits;
  /** Past this long running, whatever runs the invocation is stopped and replaced. */
  readonly deadlineMs: number;
  /** Past this long waiting to start, the invocation answers `functionBusy` (11221). */
  readonly maxWaitMs: number;
}

/**
 * A runtime: the port every deployed function runs through (QuickJS inline, QuickJS on worker
 * threads, Java in a JVM per application; a host may add its own, e.g. isolated-vm, through
 * `functions.runtimes`). The functions feature keeps the sources, their names and sizes, the runner's
 * rules (timeouts, suspension, concurrency) and the modules; a runtime compiles and runs.
 */
export interface FunctionRuntime {
  /** A name for logs (`quickjs-inline`). */
  readonly name: string;
  /** The `language` of `/1/cloudCode` it runs (`node`, `java`). */
  readonly language: string;
  /** Checks a source before it is stored: throws the coded refusal (a syntax error with its line, a broken rule). */
  check(name: string, source: string): Promise<void>;
  /**
   * Runs one invocation: resolves `done` once the function sent its reply (through `response`),
   * rejects with its coded failure, or resolves `declined` having done nothing observable (a fast
   * path that hands the invocation to the next runtime of its language).
   */
  invoke(invocation: RuntimeInvocation): Promise<'done' | 'declined'>;
  /**
   * Optional: `invoke`, answering `done` or `declined` without a promise when that is known at once
   * (an inline run that sent before returning: no promise per call). Used in place of `invoke` when
   * present; failures still reject.
   */
  invokeNow?(invocation: RuntimeInvocation): 'done' | 'declined' | Promise<'done' | 'declined'>;
  close(): Promise<void>;
}
