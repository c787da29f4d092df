import { timingSafeEqual } from 'node:crypto';
import { type Caller, type SessionResolver, internalCaller, sessionCaller } from '../app/caller.js';
import { isSvcError, svcError } from '../core/errors.js';
import type { Json, JsonObject } from '../core/wire-values.js';
import type { RecordsService } from '../records/records-service.js';
import type { DataModule, FunctionModules, ModuleCallback, ModuleMethod } from './contract.js';
import type { FunctionCall, FunctionRunner } from './function-runner.js';

export interface HostModuleDeps {
  readonly records: RecordsService;
  readonly sessions: () => SessionResolver | undefined;
  readonly runner: () => FunctionRunner;
}

/**
 * A module method in both of the hosted service's forms: with a callback `(err, data)` where `data`
 * is the JSON string of the result and `err` `{code, error}`, or without one, a promise of the value.
 */
function method<P>(work: (params: P) => Promise<Json>): ModuleMethod<P> {
  return ((params: P, callback?: ModuleCallback): Promise<Json> | void => {
    const result = Promise.resolve().then(() => work(params));
    if (!callback) return result;
    result.then(
      (value) => callback(null, JSON.stringify(value)),
      (error: unknown) => callback(isSvcError(error) ? { code: error.code, error: error.message } : { code: 11033, error: String(error) }),
    );
  }) as ModuleMethod<P>;
}

function text(value: unknown, name: string): string {
  if (typeof value !== 'string' || value.length === 0) throw svcError('paramRequired', name);
  return value;
}

function object(value: unknown, name: string): JsonObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw svcError('paramRequired', name);
  return value as JsonObject;
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * `oData` over the records service, as the invoking caller: every rule of `/1/classes` applies (ACLs,
 * class-level permissions, validation, hooks, the change feed). `setHeader` switches the following
 * calls to the master key (its value must be the application's master key) or to a session token.
 */
function dataModule(deps: HostModuleDeps, initial: Caller): DataModule {
  let caller = initial;
  const list = (params: { table: string; keys?: string; where?: Json; order?: string; limit?: number; skip?: number; count?: number; include?: string }) => {
    const query = new URLSearchParams();
    if (params.where !== undefined) query.set('where', JSON.stringify(params.where));
    for (const key of ['keys', 'order', 'include'] as const) if (params[key] !== undefined) query.set(key, String(params[key]));
    for (const key of ['limit', 'skip', 'count'] as const) if (params[key] !== undefined) query.set(key, String(params[key]));
    return deps.records.list(caller, text(params.table, 'table'), query);
  };
  return {
    find: method(list),
    findOne: method(async (params) => {
      const options = { ...(params.keys ? { keys: params.keys.split(',') } : {}), ...(params.include ? { include: [params.include] } : {}) };
      return deps.records.get(caller, text(params.table, 'table'), text(params.objectId, 'objectId'), options);
    }),
    insert: method(async (params) => {
      const created = await deps.records.create(caller, text(params.table, 'table'), object(params.data, 'data'));
      return created.reply;
    }),
    update: method(async (params) => deps.records.update(caller, text(params.table, 'table'), text(params.objectId, 'objectId'), object(params.data, 'data'))),
    remove: method(async (params) => {
      await deps.records.delete(caller, text(params.table, 'table'), text(params.objectId, 'objectId'));
      return { msg: 'ok' };
    }),
    setHeader(headers) {
      for (const [name, value] of Object.entries(headers)) {
        const header = name.toLowerCase();
        if (header.endsWith('-master-key')) {
          if (typeof value !== 'string' || !sameSecret(value, caller.app.masterKey)) throw svcError('masterKeyRequired');
          caller = internalCaller(caller.app);
        } else if (header.endsWith('-session-token')) {
          caller = sessionCaller(caller.app, { credential: 'internal', isMaster: false, sessionToken: String(value) }, deps.sessions);
        }
      }
    },
  };
}

/** The modules of one invocation (`oData`, `oFunctions`), bound to its caller and call depth. */
export function hostModules(deps: HostModuleDeps, call: FunctionCall): FunctionModules {
  return {
    oData: dataModule(deps, call.caller),
    oFunctions: {
      run: method(async (params) => {
        const data = params.data === undefined ? {} : object(params.data, 'data');
        const reply = await deps.runner().invoke({
          caller: call.caller,
          name: text(params.name, 'name'),
          request: { method: 'POST', body: data, query: {}, headers: {} },
          depth: call.depth + 1,
        });
        return reply.value ?? null;
      }),
    },
  };
}
