import { type FeatureDefinition, featureKey } from '../features/contract.js';
import type { RecordsFeature } from '../records/index.js';
import type { UsersFeature } from '../users/index.js';
import type { SmsApi } from '../sms/index.js';
import type { SessionResolver } from '../app/caller.js';
import { configError } from '../core/errors.js';
import { BACKGROUND_NICENESS, isNiceness } from '../core/background-priority.js';
import type { CloudFunction } from './contract.js';
import { DEFAULT_FUNCTION_LIMITS, type FunctionLimits, FunctionRunner, type FunctionTimer, realTimer } from './function-runner.js';
import { functionRoutes } from './function-routes.js';
import { type HostModuleDeps, hostModules } from './host-modules.js';
import type { HttpModuleOptions } from './http-module.js';
import type { FilesApi } from '../files/index.js';
import type { FunctionRedisOptions } from './redis-module.js';
import type { Caller } from '../app/caller.js';
import { MASTER_ONLY_TABLE } from '../access/table-rules.js';
import { CLOUD_CODE_TABLE, CloudCodeStore } from './cloud-code-store.js';
import { cloudCodeRoutes } from './cloud-code-routes.js';
import { DeployedFunctions } from './deployed-functions.js';
import type { FunctionRuntime } from './runtime.js';
import { inlineQuickJsRuntime, workerQuickJsRuntime } from './sandbox/quickjs-runtimes.js';
import { isolatedVmRuntime } from './sandbox/isolated-vm-runtime.js';
import { javaRuntime } from './java/java-runtime.js';
import type { Logger } from '../core/logger.js';
import { JavaFunctions, type JavaFunctionsOptions } from './java/java-functions.js';
import { PersistenceStore } from './java/persistence-store.js';
import { WECHAT_FOR_FUNCTIONS } from './java/java-wechat.js';
import { FunctionLogs } from './function-logs.js';
import { isAbsolute } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_SANDBOX_LIMITS, type SandboxLimits } from './sandbox/quickjs-sandbox.js';

/** `createService({ functions })`: host-defined cloud functions and their runtime rules. */
export interface FunctionsOptions {
  /** The functions by name: trusted code of the host, run in-process (docs/functions.md). */
  readonly definitions?: Readonly<Record<string, CloudFunction>>;
  /**
   * Functions deployed as source through `/1/cloudCode`, run in QuickJS on worker threads (needs the
   * optional peers quickjs-emscripten-core and @jitl/quickjs-wasmfile-release-sync). Default on;
   * `false` turns the routes off.
   */
  readonly deployed?: false | DeployedOptions;
  /** Timeout, concurrency cap, suspension and call depth (defaults in docs/functions.md). */
  readonly limits?: Partial<FunctionLimits>;
  /** Prefix of the plain-HTTP form `<path>/<secretKey>/<name>` (default '': the root, as the hosted service's function host). */
  readonly path?: string;
  /** The timer of timeouts (default `setTimeout`); tests pass a manual one. */
  readonly timer?: FunctionTimer;
  /** `modules.oHttp`: timeout, response size cap, hosts allowed despite private addresses. */
  readonly http?: HttpModuleOptions;
  /** `modules.oRedis`: an ioredis client and a key prefix (without it oRedis answers 11039). */
  readonly redis?: FunctionRedisOptions;
  /**
   * Java functions (`"language":"java"` on `/1/cloudCode`), compiled with the JDK's javac and run in
   * one JVM per application. Default on when a JDK is found (else Java deployments answer 11209);
   * `false` turns them off.
   */
  readonly java?: false | JavaFunctionsOptions;
  /**
   * CPU priority of the built-in runtimes' worker threads and JVMs below the event loop's: a niceness
   * from 0 to 19 (default 10, D198). Under contention a busy function then waits, not every other
   * request; on an idle machine it runs at full speed. On Linux each thread has its own; elsewhere
   * only the JVMs are lowered. 0 runs them at the event loop's priority.
   */
  readonly niceness?: number;
  /**
   * Runtimes of your own for deployed functions (an isolated-vm runtime, say), tried before the
   * built-in ones of their language (`FunctionRuntime` in runtime.ts; one may decline an invocation
   * and hand it on). Default none.
   */
  readonly runtimes?: readonly FunctionRuntime[];
}

/** Deployed functions' sandbox: per-invocation limits and worker threads. */
export interface DeployedOptions {
  readonly sandbox?: Partial<SandboxLimits>;
  /** Worker threads (default 2), started on the first deployed invocation. */
  readonly workers?: number;
  /**
   * Invocations waiting for a worker thread, all applications together (default 256) and of one
   * application (default 64): one more answers 11221 (429) at once. Each application's queue is
   * served in turn, and the wait counts toward neither the timeout nor the suspension; an
   * invocation waiting longer than its timeout answers 11221 as well.
   */
  readonly maxQueued?: number;
  readonly maxQueuedPerApp?: number;
  /**
   * Keep each function's QuickJS context warm between its invocations (default true): the prelude and
   * the source are parsed once per worker, and the function's globals persist between calls, as in a
   * Node.js process. `false` gives every invocation a fresh runtime (about 20x slower).
   */
  readonly keepWarm?: boolean;
  /**
   * Run a warm invocation on the main thread when it answers at once (default true, D130): one
   * that finishes within about a millisecond of QuickJS work, makes no module call and sets no
   * timer. Anything else is run again on a worker, its first attempt unseen. `false`: always on a
   * worker. `'isolated-vm'`: the same rule in a V8 isolate instead of QuickJS (D216), about 2 ms of
   * wall time per attempt at V8's speed; needs the optional peer isolated-vm and Node.js started
   * with `--no-node-snapshot` (createService throws the configuration error otherwise). Needs `keepWarm`.
   */
  readonly inline?: boolean | 'isolated-vm';
  /** Log lines kept per application, in bytes (default 10 MiB). */
  readonly logBytes?: number;
}

/**
 * One application's own function limits (`featureSettings.functions`), over the service's `limits`
 * and, for its deployed functions, the sandbox's (`deployed.sandbox`).
 */
export interface FunctionSettings {
  readonly timeoutMs?: number;
  readonly maxConcurrent?: number;
  /** Heap of each deployed invocation's QuickJS runtime, in bytes (4 MiB to 1 GiB). */
  readonly memoryBytes?: number;
  /** CPU budget of each deployed invocation, in QuickJS interrupt checks. */
  readonly cpuTicks?: number;
}

/** Each setting's smallest and largest value. */
const SETTING_RANGES: Readonly<Record<keyof FunctionSettings, readonly [number, number]>> = {
  timeoutMs: [1, Number.MAX_SAFE_INTEGER],
  maxConcurrent: [1, Number.MAX_SAFE_INTEGER],
  // Below 4 MiB the prelude itself does not fit.
  memoryBytes: [4 * 1024 * 1024, 1024 * 1024 * 1024],
  cpuTicks: [1, Number.MAX_SAFE_INTEGER],
};

function resolveFunctionSettings(given: unknown, defaults: FunctionSettings): FunctionSettings {
  if (given === undefined) return defaults;
  if (typeof given !== 'object' || given === null || Array.isArray(given)) throw new Error('expected { timeoutMs?, maxConcurrent?, memoryBytes?, cpuTicks? }');
  const out: Record<string, number> = {};
  for (const [key, value] of Object.entries(given)) {
    if (!Object.hasOwn(SETTING_RANGES, key)) throw new Error(`unknown setting '${key}'`);
    const [min, max] = SETTING_RANGES[key as keyof FunctionSettings];
    if (!Number.isSafeInteger(value) || (value as number) < min || (value as number) > max) throw new Error(`${key} must be an integer from ${min} to ${max}`);
    out[key] = value as number;
  }
  return out;
}

/** The published API: run a function as a caller, outside HTTP. */
export interface FunctionsApi {
  readonly runner: FunctionRunner;
}

// The keys of the features this one uses (the same ids as service.ts's RECORDS and SESSIONS).
const RECORDS = featureKey<RecordsFeature>('records');
const SESSIONS = featureKey<SessionResolver>('sessions');
const FILES = featureKey<FilesApi>('files');
const USERS = featureKey<UsersFeature>('users');
const SMS = featureKey<SmsApi>('sms');

const NAME = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;
const PATH = /^(\/[A-Za-z0-9_-]+)*$/;

/** The functions feature: `POST /1/functions/:name` and the plain-HTTP form over one runner. */
export function functionsFeature(options: FunctionsOptions): FeatureDefinition<FunctionsApi, FunctionSettings> {
  return {
    id: 'functions',
    settings: { defaults: {}, resolve: resolveFunctionSettings },
    requires: ['records'],
    after: ['users', 'files'],
    init(ctx) {
      const definitions = options.definitions ?? {};
      for (const name of Object.keys(definitions)) {
        if (!NAME.test(name) || typeof definitions[name] !== 'function') throw configError('functions', `invalid cloud function '${name}'`);
      }
      const path = options.path ?? '';
      if (!PATH.test(path)) throw configError('functions', `invalid functions path '${path}'`);
      const niceness = options.niceness ?? BACKGROUND_NICENESS;
      if (!isNiceness(niceness)) throw configError('functions', 'niceness must be an integer from 0 to 19');
      const limits: FunctionLimits = { ...DEFAULT_FUNCTION_LIMITS, ...options.limits };
      for (const [key, value] of Object.entries(limits)) {
        if (!Number.isSafeInteger(value) || value < 1) throw configError('functions', `limits.${key} must be a positive integer`);
      }
      const records = ctx.use(RECORDS);
      const sessions = () => ctx.find(SESSIONS);
      const timer = options.timer ?? realTimer;
      const deployedOptions = options.deployed === false ? null : (options.deployed ?? {});
      for (const key of ['workers', 'maxQueued', 'maxQueuedPerApp'] as const) {
        const value = deployedOptions?.[key];
        if (value !== undefined && (!Number.isSafeInteger(value) || value < 1)) throw configError('functions', `deployed.${key} must be a positive integer`);
      }
      const logs = new FunctionLogs(ctx.clock, deployedOptions?.logBytes);
      const store = new CloudCodeStore(ctx.storage, ctx.clock, ctx.random);
      const sandboxLimits: SandboxLimits = { ...DEFAULT_SANDBOX_LIMITS, ...deployedOptions?.sandbox };
      const deployed = deployedOptions
        ? new DeployedFunctions({
            store,
            runtimes: [...(options.runtimes ?? []), ...builtInRuntimes(deployedOptions, options.java, { logs, timer, logger: ctx.logger, niceness }, () =>
              new JavaFunctions({
                options: options.java === false ? {} : (options.java ?? {}),
                niceness,
                logs,
                timer,
                clock: ctx.clock,
                logger: ctx.logger,
                here: moduleFile(),
                persistence: new PersistenceStore(ctx.kv, ctx.clock),
                wechat: () => ctx.find(WECHAT_FOR_FUNCTIONS)?.forFunctions,
                sms: () => ctx.find(SMS),
                users: () => ctx.find(USERS)?.service,
                sessions,
                files: () => ctx.find(FILES),
              }),
            )],
            limitsFor: (caller: Caller) => {
              const own = ctx.settings(caller.app);
              return { ...sandboxLimits, ...(own.memoryBytes ? { memoryBytes: own.memoryBytes } : {}), ...(own.cpuTicks ? { cpuTicks: own.cpuTicks } : {}) };
            },
            // The function's own timeout (its application's, when set) plus a grace.
            deadlineFor: (caller: Caller) => (ctx.settings(caller.app).timeoutMs ?? limits.timeoutMs) + 5000,
            maxWaitFor: (caller: Caller) => ctx.settings(caller.app).timeoutMs ?? limits.timeoutMs,
            hostNames: new Set(Object.keys(definitions)),
          })
        : null;
      // Built once: an invocation's modules are made per call, their dependencies are not.
      const moduleDeps: HostModuleDeps = {
        records: records.service,
        storage: ctx.storage,
        http: options.http ?? {},
        redis: options.redis,
        files: () => ctx.find(FILES),
        logger: ctx.logger,
        sessions,
        runner: () => runner,
        users: () => ctx.find(USERS)?.service,
      };
      const runner: FunctionRunner = new FunctionRunner({
        functions: definitions,
        limitsOf: (caller: Caller) => {
          const own = ctx.settings(caller.app);
          return own.timeoutMs === undefined && own.maxConcurrent === undefined ? limits : { ...limits, ...own };
        },
        ...(deployed ? { deployed: (caller: Caller, name: string) => deployed.lookup(caller, name) } : {}),
        limits,
        clock: ctx.clock,
        timer,
        logger: ctx.logger,
        modules: (call) => hostModules(moduleDeps, call),
        ...(ctx.metrics ? { metrics: ctx.metrics } : {}),
      });
      records.declareTable(CLOUD_CODE_TABLE, MASTER_ONLY_TABLE);
      const routes = functionRoutes({ runner, path });
      if (deployed) routes.unshift(...cloudCodeRoutes({ deployed, store, logs, runner }));
      return { api: { runner }, routes, close: () => deployed?.close() };
    },
  };
}

/**
 * The built-in runtimes, in the order they are tried: QuickJS inline (a warm invocation over at
 * once, unless `deployed.inline` is false), QuickJS on worker threads, and Java (unless
 * `functions.java` is false).
 */
function builtInRuntimes(
  deployed: DeployedOptions,
  java: FunctionsOptions['java'],
  shared: { readonly logs: FunctionLogs; readonly timer: FunctionTimer; readonly logger: Logger; readonly niceness: number },
  javaFunctions: () => JavaFunctions,
): FunctionRuntime[] {
  const keepWarm = deployed.keepWarm ?? true;
  const runtimes: FunctionRuntime[] = [];
  const inline = deployed.inline ?? true;
  if (inline === 'isolated-vm' && keepWarm) runtimes.push(isolatedVmRuntime({ logs: shared.logs, logger: shared.logger }));
  else if (inline && keepWarm) runtimes.push(inlineQuickJsRuntime({ logs: shared.logs, logger: shared.logger, keepWarm }));
  runtimes.push(
    workerQuickJsRuntime({
      logs: shared.logs,
      logger: shared.logger,
      keepWarm,
      timer: shared.timer,
      workers: deployed.workers ?? 2,
      niceness: shared.niceness,
      ...(deployed.maxQueued !== undefined ? { maxQueued: deployed.maxQueued } : {}),
      ...(deployed.maxQueuedPerApp !== undefined ? { maxQueuedPerApp: deployed.maxQueuedPerApp } : {}),
    }),
  );
  if (java !== false) runtimes.push(javaRuntime(javaFunctions()));
  return runtimes;
}

/** This module's file (the CommonJS build has __filename; ESM and the sources have import.meta.url). */
function moduleFile(): string {
  return typeof __filename === 'string' && isAbsolute(__filename) ? __filename : fileURLToPath(import.meta.url);
}
