import { type FeatureDefinition, featureKey } from '../features/contract.js';
import type { RecordsFeature } from '../records/records-feature.js';
import type { SessionResolver } from '../app/caller.js';
import { configError } from '../core/errors.js';
import type { CloudFunction } from './contract.js';
import { DEFAULT_FUNCTION_LIMITS, type FunctionLimits, FunctionRunner, type FunctionTimer, realTimer } from './function-runner.js';
import { functionRoutes } from './function-routes.js';
import { hostModules } from './host-modules.js';
import type { HttpModuleOptions } from './http-module.js';
import type { FilesApi } from '../files/files-api.js';
import type { FunctionRedisOptions } from './redis-module.js';

/** `createService({ functions })`: host-defined cloud functions and their runtime rules. */
export interface FunctionsOptions {
  /** The functions by name: trusted code of the host, run in-process (docs/functions.md). */
  readonly definitions: Readonly<Record<string, CloudFunction>>;
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
}

/** The published API: run a function as a caller, outside HTTP. */
export interface FunctionsApi {
  readonly runner: FunctionRunner;
}

// The keys of the features this one uses (the same ids as service.ts's RECORDS and SESSIONS).
const RECORDS = featureKey<RecordsFeature>('records');
const SESSIONS = featureKey<SessionResolver>('sessions');
const FILES = featureKey<FilesApi>('files');

const NAME = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;
const PATH = /^(\/[A-Za-z0-9_-]+)*$/;

/** The functions feature: `POST /1/functions/:name` and the plain-HTTP form over one runner. */
export function functionsFeature(options: FunctionsOptions): FeatureDefinition<FunctionsApi> {
  return {
    id: 'functions',
    requires: ['records'],
    after: ['users', 'files'],
    init(ctx) {
      for (const name of Object.keys(options.definitions)) {
        if (!NAME.test(name) || typeof options.definitions[name] !== 'function') throw configError('functions', `invalid cloud function '${name}'`);
      }
      const path = options.path ?? '';
      if (!PATH.test(path)) throw configError('functions', `invalid functions path '${path}'`);
      const limits: FunctionLimits = { ...DEFAULT_FUNCTION_LIMITS, ...options.limits };
      for (const [key, value] of Object.entries(limits)) {
        if (!Number.isSafeInteger(value) || value < 1) throw configError('functions', `limits.${key} must be a positive integer`);
      }
      const records = ctx.use(RECORDS);
      const sessions = () => ctx.find(SESSIONS);
      const runner: FunctionRunner = new FunctionRunner({
        functions: options.definitions,
        limits,
        clock: ctx.clock,
        timer: options.timer ?? realTimer,
        logger: ctx.logger,
        modules: (call) => hostModules({ records: records.service, storage: ctx.storage, http: options.http ?? {}, redis: options.redis, files: () => ctx.find(FILES), logger: ctx.logger, sessions, runner: () => runner }, call),
      });
      return { api: { runner }, routes: functionRoutes({ runner, applications: ctx.applications, sessions, path }) };
    },
  };
}
