import type { Application } from '../app/application.js';
import type { Caller } from '../app/caller.js';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import type { Json } from '../core/wire-values.js';
import type { KvStore } from '../kv/port.js';

/**
 * The two kinds of module a cloud function can use (rest-facts §7.2: `modules.oData`, `require('async')`).
 *
 * A host module runs outside the sandbox: each method takes JSON arguments and resolves to JSON, so the
 * sandbox can call it across its boundary (the runtime adds the hosted service's callback form
 * `function(err, data)` with `data` a JSON string, and promises). A sandbox library is CommonJS source
 * evaluated inside the sandbox, for modules whose values are objects with methods (moment, crypto-js).
 */
export interface ModuleCallContext {
  readonly app: Application;
  /** Who the function acts as: the invoking caller, or master after `oData.setHeader` with the master key. */
  readonly caller: Caller;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly kv: KvStore;
  /** Aborted when the invocation times out or ends: long host work should stop. */
  readonly signal: AbortSignal;
}

export type HostMethod = (ctx: ModuleCallContext, args: readonly Json[]) => Promise<Json>;

export interface HostModule {
  /** The name under `modules` (`oData`, `oHttp`). */
  readonly name: string;
  readonly methods: Readonly<Record<string, HostMethod>>;
}

export interface SandboxLibrary {
  /** The name under `modules` or `require(name)` (`oMoment`, `async`). */
  readonly name: string;
  /** CommonJS source: assigns `module.exports`; may `require` only other sandbox libraries. */
  readonly source: string;
  /** Also reachable as `require(name)` (true for `async`), not only as `modules[name]`. */
  readonly requirable?: boolean;
}
