import { createHash } from 'node:crypto';
import { hostLibrary } from './sandbox-libraries.js';
import { NodeRSA } from './rsa-module.js';
import { type Caller, type SessionResolver, internalCaller, sessionCaller } from '../app/caller.js';
import { isSvcError, svcError } from '../core/errors.js';
import { secretsEqual } from '../core/secrets.js';
import type { Json, JsonObject } from '../core/wire-values.js';
import type { RecordsService } from '../records/index.js';
import type { UsersService } from '../users/index.js';
import type { FilesApi } from '../files/index.js';
import { parseBatch, runBatch, bqlValues, executeBql } from '../records/index.js';
import type { StorageAdapter } from '../storage/port.js';
import { type HttpModuleOptions, httpModule } from './http-module.js';
import { type FunctionRedisOptions, redisModule } from './redis-module.js';
import { encodingModule, eventModule, gzipModule, logModule } from './util-modules.js';
import type { Logger } from '../core/logger.js';
import type { CryptoJsModule, DataModule, HtmlparserModule, FunctionModules, ModuleCallback, ModuleMethod, MomentModule, UserDataMethods } from './contract.js';
import type { FunctionCall, FunctionRunner } from './function-runner.js';

export interface HostModuleDeps {
  readonly records: RecordsService;
  /** The storage a transactional `oBatch` runs its transaction on. */
  readonly storage: StorageAdapter;
  /** Limits and allowed hosts of `oHttp`. */
  readonly http: HttpModuleOptions;
  /** The Redis behind `oRedis`, when the host gives one. */
  readonly redis: FunctionRedisOptions | undefined;
  /** The files feature's API, when files are on (`oFile`). */
  readonly files: () => FilesApi | undefined;
  /** Where `oLog` writes. */
  readonly logger: Logger;
  readonly sessions: () => SessionResolver | undefined;
  readonly runner: () => FunctionRunner;
  /** The users feature's service, when users are on (`oData`'s user methods). */
  readonly users: () => UsersService | undefined;
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

/**
 * `oData` over the records service, as the invoking caller: every rule of `/1/classes` applies (ACLs,
 * class-level permissions, validation, hooks, the change feed). `setHeader` switches the following
 * calls to the master key (its value must be the application's master key) or to a session token.
 */
interface Acting {
  caller: Caller;
}

type ListParams = { table: string; keys?: string; where?: Json; order?: string; limit?: number; skip?: number; count?: number; include?: string };

/** `oData.find`'s parameters as the list service's wire query. */
function lister(deps: HostModuleDeps, acting: Acting, tableOf: (table: string) => string = (t) => t) {
  return (params: ListParams) => {
    const query = new URLSearchParams();
    if (params.where !== undefined) query.set('where', JSON.stringify(params.where));
    for (const key of ['keys', 'order', 'include'] as const) if (params[key] !== undefined) query.set(key, String(params[key]));
    for (const key of ['limit', 'skip', 'count'] as const) if (params[key] !== undefined) query.set(key, String(params[key]));
    return deps.records.list(acting.caller, tableOf(text(params.table, 'table')), query);
  };
}

function dataModule(deps: HostModuleDeps, acting: Acting): DataModule & UserDataMethods {
  const list = lister(deps, acting);
  return {
    find: method(list),
    findOne: method(async (params) => {
      const options = { ...(params.keys ? { keys: params.keys.split(',') } : {}), ...(params.include ? { include: [params.include] } : {}) };
      return deps.records.get(acting.caller, text(params.table, 'table'), text(params.objectId, 'objectId'), options);
    }),
    insert: method(async (params) => {
      const created = await deps.records.create(acting.caller, text(params.table, 'table'), object(params.data, 'data'));
      return created.reply;
    }),
    update: method(async (params) => deps.records.update(acting.caller, text(params.table, 'table'), text(params.objectId, 'objectId'), object(params.data, 'data'))),
    remove: method(async (params) => {
      await deps.records.delete(acting.caller, text(params.table, 'table'), text(params.objectId, 'objectId'));
      return { msg: 'ok' };
    }),
    ...userMethods(deps, acting),
    setHeader(headers) {
      for (const [name, value] of Object.entries(headers)) {
        const header = name.toLowerCase();
        if (header.endsWith('-master-key')) {
          if (typeof value !== 'string' || !secretsEqual(value, acting.caller.app.masterKey)) throw svcError('masterKeyRequired');
          acting.caller = internalCaller(acting.caller.app);
        } else if (header.endsWith('-session-token')) {
          acting.caller = sessionCaller(acting.caller.app, { credential: 'internal', isMaster: false, sessionToken: String(value) }, deps.sessions);
        }
      }
    },
  };
}

/**
 * `oData`'s user methods (rest-facts §7.2), through the users service as the acting caller, so each
 * answers what its REST route answers (sign-up 202/203/209, 101 for a wrong password, 206 without the
 * user's session or the master key for another user's record).
 */
function userMethods(deps: HostModuleDeps, acting: Acting): UserDataMethods {
  const users = (): UsersService => {
    const service = deps.users();
    if (!service) throw svcError('featureDisabled', 'users');
    return service;
  };
  const emailOf = (params: { data?: JsonObject; email?: string }): JsonObject => (params.data ? object(params.data, 'data') : { email: text(params.email, 'email') });
  return {
    userSignUp: method(async (params: { data: JsonObject }) => (await users().signUp(acting.caller, object(params.data, 'data'))).reply),
    userLogin: method(async (params: { username: string; password: string }) => users().login(acting.caller, { username: text(params.username, 'username'), password: text(params.password, 'password') })),
    userRestPassword: method(async (params: { data?: JsonObject; email?: string }) => {
      await users().requestPasswordReset(acting.caller, emailOf(params));
      return { msg: 'ok' };
    }),
    requestEmailVerify: method(async (params: { data?: JsonObject; email?: string }) => {
      await users().requestEmailVerify(acting.caller, emailOf(params));
      return { msg: 'ok' };
    }),
    getUserByObjectId: method(async (params: { objectId: string }) => users().get(acting.caller, text(params.objectId, 'objectId'))),
    updateUserByObjectId: method(async (params: { objectId: string; data: JsonObject }) => users().update(acting.caller, text(params.objectId, 'objectId'), object(params.data, 'data'))),
    removeUserByObjectId: method(async (params: { objectId: string }) => {
      await users().delete(acting.caller, text(params.objectId, 'objectId'));
      return { msg: 'ok' };
    }),
    getAllUser: method(async (params: { limit?: number; skip?: number } | undefined) => {
      const query = new URLSearchParams();
      if (params && typeof params === 'object') {
        if (params.limit !== undefined) query.set('limit', String(params.limit));
        if (params.skip !== undefined) query.set('skip', String(params.skip));
      }
      return users().list(acting.caller, query);
    }),
  };
}

/** Writes of one record through the records service: `update` with the module's data. */
function rowWriter(deps: HostModuleDeps, acting: Acting, tableOf: (table: string) => string = (t) => t) {
  return method(async (params: { table: string; objectId: string; data: JsonObject }) =>
    deps.records.update(acting.caller, tableOf(text(params.table, 'table')), text(params.objectId, 'objectId'), object(params.data, 'data')),
  );
}

/** `oRelation` names the user table `users`, as the REST path does. */
const relationTable = (table: string) => (table === 'users' ? '_User' : table);

const HASHES = new Set(['md5', 'sha1', 'sha256']);

/** The modules of one invocation, bound to its caller (switchable with `oData.setHeader`) and call depth. */
export function hostModules(deps: HostModuleDeps, call: FunctionCall): FunctionModules {
  return new InvocationModules(deps, call);
}

/**
 * The modules of one invocation, each built on first use (a prototype getter, cached in a field):
 * most functions touch one or two modules, so an invocation pays only for those.
 */
class InvocationModules implements FunctionModules {
  private readonly acting: Acting;
  private built: Partial<Record<keyof FunctionModules, unknown>> = {};

  constructor(
    private readonly deps: HostModuleDeps,
    private readonly call: FunctionCall,
  ) {
    this.acting = { caller: call.caller };
  }

  private once<K extends keyof FunctionModules>(key: K, build: () => FunctionModules[K]): FunctionModules[K] {
    return (this.built[key] ??= build()) as FunctionModules[K];
  }

  get oEvent() {
    return this.once('oEvent', eventModule);
  }

  get oGzip() {
    return gzipModule;
  }

  get oEncodeing() {
    return encodingModule;
  }

  get oLog() {
    return this.once('oLog', () => logModule(this.deps.logger, this.call.caller.app.applicationId, this.call.name));
  }

  get oHttp() {
    return this.once('oHttp', () => httpModule(this.deps.http, this.call.signal ?? new AbortController().signal));
  }

  get oRedis() {
    return this.once('oRedis', () => redisModule(this.deps.redis, this.call.caller.app.applicationId));
  }

  get oFile() {
    const { deps, acting } = this;
    return this.once('oFile', () => ({
      del: method(async (params: { url: string }) => {
        const files = deps.files();
        if (!files) throw svcError('featureDisabled', 'files');
        const reference = text(params.url, 'url');
        if (!(await files.delete(acting.caller, reference))) throw svcError('fileNotFound', reference.slice(0, 128));
        return { msg: 'ok' };
      }),
    }));
  }

  get oData() {
    return this.once('oData', () => dataModule(this.deps, this.acting));
  }

  get oBql() {
    const { deps, acting } = this;
    return this.once('oBql', () => ({
      exec: method(async (params: { bql: string; values?: Json[] | string }) => executeBql(deps.records, acting.caller, text(params.bql, 'bql'), bqlValues(params.values))),
    }));
  }

  get oRelation() {
    const { deps, acting } = this;
    return this.once('oRelation', () => ({
      add: creator(deps, acting, relationTable),
      update: rowWriter(deps, acting, relationTable),
      delete: rowWriter(deps, acting, relationTable),
      query: method(lister(deps, acting, relationTable)),
    }));
  }

  get oAtom() {
    return this.once('oAtom', () => ({ exec: rowWriter(this.deps, this.acting) }));
  }

  get oArray() {
    const { deps, acting } = this;
    return this.once('oArray', () => ({
      add: method(async (params: { table: string; objectId?: string; data: JsonObject }) =>
        params.objectId === undefined
          ? (await deps.records.create(acting.caller, text(params.table, 'table'), object(params.data, 'data'))).reply
          : deps.records.update(acting.caller, text(params.table, 'table'), text(params.objectId, 'objectId'), object(params.data, 'data')),
      ),
      addUnique: rowWriter(deps, acting),
      remove: rowWriter(deps, acting),
      query: method(lister(deps, acting)),
    }));
  }

  get oLocation() {
    return this.once('oLocation', () => ({ create: rowWriter(this.deps, this.acting), query: method(lister(this.deps, this.acting)) }));
  }

  get oBatch() {
    const { deps, acting } = this;
    return this.once('oBatch', () => ({
      exec: method(async (params: { data: { requests: Json; transaction?: boolean } }) => {
        const body = object(params.data, 'data');
        const batch = parseBatch(body, acting.caller.app.settings.query.batchMax);
        return (await runBatch({ records: deps.records, storage: deps.storage, sessions: deps.sessions }, acting.caller, batch)) as Json;
      }),
    }));
  }

  /** moment itself (an optional peer; 11007 naming the install without it). */
  get oMoment() {
    return hostLibrary('oMoment') as MomentModule;
  }

  /** crypto-js itself (an optional peer; 11007 naming the install without it). */
  get oCryptoJS() {
    return hostLibrary('oCryptoJS') as CryptoJsModule;
  }

  /** htmlparser 1.x itself (an optional peer; 11007 naming the install without it). */
  get oHtmlparser() {
    return hostLibrary('oHtmlparser') as HtmlparserModule;
  }

  /** node-rsa's class (rest-facts §7.2), over node:crypto. */
  get oCryptoRSA() {
    return NodeRSA;
  }

  get oCrypto() {
    return this.once('oCrypto', () => ({
      createHash(algorithm: string) {
        if (!HASHES.has(algorithm)) throw svcError('invalidParameter', `oCrypto.createHash: ${String(algorithm).slice(0, 32)} is not one of md5, sha1, sha256`);
        return {
          update: (input: string) => ({ digest: (encoding: 'hex' | 'base64') => createHash(algorithm).update(String(input)).digest(encoding === 'base64' ? 'base64' : 'hex') }),
        };
      },
    }));
  }

  get oFunctions() {
    const { deps, call } = this;
    return this.once('oFunctions', () => ({
      run: method(async (params: { name: string; data?: { [key: string]: Json } }) => {
        const data = params.data === undefined ? {} : object(params.data, 'data');
        const reply = await deps.runner().invoke({
          caller: call.caller,
          name: text(params.name, 'name'),
          request: { method: 'POST', body: data, query: {}, headers: {} },
          depth: call.depth + 1,
          ...(call.signal ? { signal: call.signal } : {}),
        });
        // Bytes another function sent reach a caller as their UTF-8 text.
        return reply.value instanceof Uint8Array ? Buffer.from(reply.value).toString('utf8') : (reply.value ?? null);
      }),
    }));
  }
}

/** A create through the records service (`oRelation.add`). */
function creator(deps: HostModuleDeps, acting: Acting, tableOf: (table: string) => string) {
  return method(async (params: { table: string; data: JsonObject }) => (await deps.records.create(acting.caller, tableOf(text(params.table, 'table')), object(params.data, 'data'))).reply);
}
