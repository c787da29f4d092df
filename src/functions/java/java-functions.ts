import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Caller } from '../../app/caller.js';
import type { Clock } from '../../core/clock.js';
import { isSvcError, svcError } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import { formatDateTime } from '../../core/time.js';
import type { Json, JsonObject } from '../../core/wire-values.js';
import type { CloudFunction, FunctionModules, FunctionRequest } from '../contract.js';
import type { FunctionLogs } from '../function-logs.js';
import { replyProblem } from '../function-response.js';
import type { FunctionTimer } from '../function-runner.js';
import { type CompiledJava, JavaBuild } from './java-build.js';
import type { JavaRequest } from './java-protocol.js';
import { checkJavaSource } from './java-rules.js';
import { type PersistenceStore, persistencePath } from './persistence-store.js';
import type { WechatForFunctions } from './java-wechat.js';
import type { SmsApi } from '../../sms/index.js';
import type { UsersService } from '../../users/index.js';
import type { FilesApi } from '../../files/index.js';
import { type SessionResolver, sessionCaller } from '../../app/caller.js';
import { type JavaToolchain, findJavaToolchain, javaSourceRoot } from './java-toolchain.js';
import { type CallFailure, JavaWorker } from './java-worker.js';

export interface JavaFunctionsOptions {
  /** The JDK to use (its `bin` holds java and javac); default: the first on PATH. */
  readonly javaHome?: string;
  /** Where compiled classes are cached (default `<tmp>/svcbase-java-<uid>`); shared safely by this user's processes, refused when others can write to it. */
  readonly cacheDir?: string;
  /** Heap of each application's JVM in MiB (default 128); a function that needs more ends its worker. */
  readonly heapMb?: number;
}

export interface JavaFunctionsDeps {
  readonly options: JavaFunctionsOptions;
  /** Niceness of the JVMs (`functions.niceness`). */
  readonly niceness: number;
  readonly logs: FunctionLogs;
  readonly timer: FunctionTimer;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Where this module file is (to find java/src). */
  readonly here: string;
  /** oPersistence's items (in the service's KvStore). */
  readonly persistence: PersistenceStore;
  /** The mini-program platform feature, when the service has it (`oWechat`). */
  readonly wechat: () => WechatForFunctions | undefined;
  /** The SMS feature, when the service has it (`oData.sendSMSCode`, `verifySMSCode`). */
  readonly sms: () => SmsApi | undefined;
  /** The users service and session resolver (`oData.userLoginBySMS` and the password resets). */
  readonly users: () => UsersService | undefined;
  readonly sessions: () => SessionResolver | undefined;
  /** The files feature, when on (`oData.uploadfile`, `deletefile`, `deletefiles`). */
  readonly files: () => FilesApi | undefined;
}

type ModuleTarget = Record<string, ((...args: unknown[]) => unknown) | undefined>;

/** The promise form of a Node module method, as the Java API's calls reach it. */
async function nodeModule(modules: FunctionModules, module: string, method: string, args: Json[]): Promise<Json> {
  const target = (modules as unknown as Record<string, ModuleTarget | undefined>)[module];
  const fn = target?.[method];
  if (typeof fn !== 'function') throw svcError('invalidParameter', `modules.${module.slice(0, 32)}.${method.slice(0, 32)} does not exist`);
  return (await fn.apply(target, args)) as Json;
}

/** Module methods a Java function may reach (the Java API's own calls; anything else is refused). */
const BRIDGED = new Set([
  'oData.setHeader', 'oData.insert', 'oData.update', 'oData.remove', 'oData.find', 'oData.findOne', 'oBql.exec', 'oFunctions.run', 'oBatch.exec',
  'host.timestamp', 'javaHttp.request',
  'javaPersistence.size', 'javaPersistence.read', 'javaPersistence.write', 'javaPersistence.delete', 'javaPersistence.struct',
  'javaWechat.token', 'javaWechat.send',
  'oData.userSignUp', 'oData.userLogin', 'oData.userRestPassword', 'javaSms.sendCode', 'javaSms.verify',
  'javaUsers.loginBySms', 'javaUsers.resetBySms', 'javaUsers.resetByPassword', 'javaFiles.upload', 'javaFiles.delete',
]);

function failureOf(error: unknown): CallFailure {
  if (isSvcError(error)) return { code: error.code, error: error.message, status: error.status };
  return { code: 11033, error: error instanceof Error ? error.message : String(error), status: 424 };
}

/** The Java Request of a call: the path called (`/<secretKey>/<name>` for another function's call), headers as arrays, the params, and the body's bytes (the params' JSON text over REST). */
function javaRequest(caller: Caller, name: string, request: FunctionRequest): JavaRequest {
  const headers: Record<string, string[]> = {};
  for (const [key, value] of Object.entries(request.headers)) headers[key] = [value];
  const body = request.raw ? Buffer.from(request.raw) : Buffer.from(Object.keys(request.body).length > 0 ? JSON.stringify(request.body) : '', 'utf8');
  return {
    path: request.path ?? `/${caller.app.secretKey ?? caller.app.applicationId}/${name}`,
    method: request.method,
    headers,
    query: { ...request.query },
    params: { ...request.body },
    body: body.toString('base64'),
  };
}

/**
 * Java cloud functions: sources checked against the hosted rules (java-rules.ts) and compiled by the
 * JDK's javac when deployed, run in one long-lived JVM per application (java-worker.ts; started on
 * first use, so the JVM's start-up is paid once). Module calls come back to this process and run as
 * the function's caller through the same modules as Node functions. A worker whose invocation
 * outlives its deadline, or that dies (a crash, out of memory), is dropped: its running invocations
 * fail with 11210 and the next call starts a fresh JVM (oMemory starts empty again).
 */
export class JavaFunctions {
  private build: JavaBuild | null | undefined;
  private readonly workers = new Map<string, JavaWorker>();

  constructor(private readonly deps: JavaFunctionsDeps) {}

  /** Checks the rules, then compiles (so a deployment reports javac's errors); 11209 without a JDK. */
  async check(name: string, source: string): Promise<void> {
    const broken = checkJavaSource(source);
    if (broken) throw svcError('javaUpdateFailed', `rule '${broken.rule}' broken at line ${broken.line}: ${broken.detail}`);
    await this.toolchain().compile(name, source);
  }

  /** A deployed Java source as a cloud function of the caller's application. */
  functionOf(caller: Caller, name: string, source: string, deadlineMs: number): CloudFunction {
    const appId = caller.app.applicationId;
    return async (request, response, modules) => {
      const build = this.toolchain();
      const compiled = await build.compile(name, source);
      const worker = await this.workerFor(appId, build);
      await new Promise<void>((resolve, reject) => {
        let httpUsed = false;
        const persisted = { reads: 0, writes: 0 };
        let finished = false;
        const cancel = this.deps.timer.setTimeout(() => {
          if (!finished) worker.kill(`cloud function ${name} was still running ${deadlineMs} ms after it started`);
        }, deadlineMs);
        const finish = () => {
          finished = true;
          cancel();
        };
        worker.invoke(compiled, javaRequest(caller, name, request), {
          call: async (module, method, args) => {
            if (!BRIDGED.has(`${module}.${method}`)) throw svcError('invalidParameter', `no such module call ${module}.${method}`);
            if (module === 'host') return this.timestamp(caller);
            if (module === 'javaHttp') {
              if (httpUsed) throw svcError('invalidParameter', 'oHttp sends 1 request per execution');
              httpUsed = true;
              return this.http(modules, args[0]);
            }
            if (module === 'javaPersistence') return this.persist(appId, method, args, persisted);
            if (module === 'javaWechat') return this.wechat(caller, method, args[0]);
            if (module === 'javaSms') return this.sms(caller, method, args[0]);
            if (module === 'javaUsers') return this.users(caller, method, args[0]);
            if (module === 'javaFiles') return this.files(caller, method, args[0]);
            if (module === 'oData' && method === 'setHeader') {
              modules.oData.setHeader(args[0] as Record<string, string>);
              return null;
            }
            return nodeModule(modules, module, method, args);
          },
          log: (level, text) => this.deps.logs.append(appId, name, level === 'debug' ? 'log' : level, text),
          // What crossed from the JVM is checked before any of it reaches the response.
          send: (reply) => {
            const problem = replyProblem(reply.status, reply.headers);
            if (problem) throw svcError('functionReplyInvalid', name, problem);
            for (const [header, value] of Object.entries(reply.headers)) response.setHeader(header, String(value));
            if (reply.status !== 200) response.status(reply.status);
            response.send(reply.text ? reply.body : Buffer.from(reply.body, 'base64'));
            resolve();
          },
          refused: (error) => {
            finish();
            reject(isSvcError(error) ? error : svcError('functionReplyInvalid', name, error instanceof Error ? error.message : String(error)));
          },
          finished: (error) => {
            finish();
            // A method that returns without sending is left to the runner's timeout, as on the hosted service.
            if (error !== undefined) reject(new Error(error));
          },
          stopped: (reason) => {
            finish();
            reject(svcError('javaWorkerStopped', name, reason));
          },
        });
      });
    };
  }

  async close(): Promise<void> {
    for (const worker of this.workers.values()) worker.kill('the service is closing');
    this.workers.clear();
  }

  /** The build of this process: found and checked once; 11209 without a JDK or the Java sources. */
  private toolchain(): JavaBuild {
    if (this.build === undefined) {
      const toolchain: JavaToolchain | null = findJavaToolchain(this.deps.options.javaHome);
      const sources = javaSourceRoot(this.deps.here);
      this.build = toolchain && sources ? new JavaBuild(toolchain, sources, this.deps.options.cacheDir ?? join(tmpdir(), `svcbase-java-${typeof process.getuid === 'function' ? process.getuid() : 'user'}`)) : null;
      if (!this.build) this.deps.logger.info('Java cloud functions are off', { reason: toolchain ? 'the java/ sources are missing from this build' : 'no JDK (java and javac) found' });
    }
    if (!this.build) throw svcError('javaUnavailable', findJavaToolchain(this.deps.options.javaHome) ? 'the java/ sources are missing from this build' : 'java and javac were not found');
    return this.build;
  }

  private async workerFor(appId: string, build: JavaBuild): Promise<JavaWorker> {
    let worker = this.workers.get(appId);
    if (!worker || !worker.alive) {
      const api = await build.apiClasses();
      await mkdir(build.functionsRoot, { recursive: true });
      const java = findJavaToolchain(this.deps.options.javaHome)!.java;
      worker = new JavaWorker({ java, apiDir: api.dir, functionsRoot: build.functionsRoot, heapMb: this.deps.options.heapMb ?? 128, niceness: this.deps.niceness, logger: this.deps.logger }, failureOf);
      this.workers.set(appId, worker);
    }
    await worker.ready.catch((error: unknown) => {
      throw svcError('javaWorkerStopped', 'worker', error instanceof Error ? error.message : String(error));
    });
    return worker;
  }

  /** oPersistence's calls; one read and one write (or delete) per execution, as the hosted limits say. */
  private async persist(appId: string, method: string, args: Json[], used: { reads: number; writes: number }): Promise<Json> {
    const store = this.deps.persistence;
    if (method === 'struct') return (await store.struct(appId)) as Json;
    const path = persistencePath(String(args[0] ?? '').split('/'));
    if (!path) throw svcError('invalidParameter', 'an oPersistence path is 1 to 8 parts of letters, digits, _ . -');
    if (method === 'size') return store.size(appId, path);
    if (method === 'read') {
      if (used.reads++ > 0) throw svcError('invalidParameter', 'oPersistence allows 1 read per execution');
      const data = await store.read(appId, path);
      return data === null ? null : data.toString('base64');
    }
    if (used.writes++ > 0) throw svcError('invalidParameter', 'oPersistence allows 1 write per execution');
    if (method === 'delete') return store.delete(appId, path);
    return store.write(appId, path, Buffer.from(String(args[1] ?? ''), 'base64'), args[2] === true);
  }

  /** oWechat's calls: the token, or a customer-service message, for the configured mini program or the one the function named. */
  private async wechat(caller: Caller, method: string, params: Json | undefined): Promise<Json> {
    const wechat = this.deps.wechat();
    if (!wechat) throw svcError('platformNotConfigured', 'the mini-program platform feature is off');
    const p = (params ?? {}) as { appId?: unknown; secret?: unknown; token?: unknown; message?: unknown };
    const account = typeof p.appId === 'string' && typeof p.secret === 'string' ? { appId: p.appId, secret: p.secret } : undefined;
    if (method === 'token') return wechat.accessToken(caller.app, account);
    if (typeof p.message !== 'object' || p.message === null || Array.isArray(p.message)) throw svcError('invalidParameter', 'message must be an object');
    await wechat.sendCustomerMessage(caller.app, p.message as JsonObject, { ...(account ? { account } : {}), ...(typeof p.token === 'string' ? { token: p.token } : {}) });
    return { errcode: 0, errmsg: 'ok' };
  }

  /** SMS codes for the caller's application: subject to the same templates, limits and quota as `requestSmsCode`. */
  private async sms(caller: Caller, method: string, params: Json | undefined): Promise<Json> {
    const sms = this.deps.sms();
    if (!sms) throw svcError('featureDisabled', 'sms');
    const p = (params ?? {}) as { mobile?: unknown; template?: unknown; code?: unknown };
    if (typeof p.mobile !== 'string') throw svcError('invalidParameter', 'mobile is needed');
    if (method === 'sendCode') {
      const template = typeof p.template === 'string' && p.template !== '' ? p.template : undefined;
      return sms.requestCode(caller.app, p.mobile, template ? { template } : {}) as Promise<Json>;
    }
    if (typeof p.code !== 'string') throw svcError('invalidParameter', 'smsCode is needed');
    await sms.verifyCode(caller.app, p.mobile, p.code);
    return { msg: 'ok' };
  }

  /** Phone login and the password resets, as their REST routes answer them. */
  private async users(caller: Caller, method: string, params: Json | undefined): Promise<Json> {
    const users = this.deps.users();
    if (!users) throw svcError('featureDisabled', 'users');
    const p = (params ?? {}) as Record<string, Json>;
    const text = (key: string): string => {
      const value = p[key];
      if (typeof value !== 'string' || value === '') throw svcError('paramRequired', key);
      return value;
    };
    if (method === 'loginBySms') {
      const info = typeof p['userInfo'] === 'object' && p['userInfo'] !== null && !Array.isArray(p['userInfo']) ? (p['userInfo'] as JsonObject) : {};
      return (await users.phoneSignUpOrLogin(caller, { ...info, mobilePhoneNumber: text('mobile'), smsCode: text('smsCode') })).reply;
    }
    if (method === 'resetBySms') {
      await users.resetPasswordBySmsCode(caller, text('smsCode'), { password: text('password') });
      return { msg: 'ok' };
    }
    // The user's own session, as `PUT /1/updateUserPassword/<id>` with its token.
    const asUser = sessionCaller(caller.app, { credential: 'internal', isMaster: false, sessionToken: text('session') }, this.deps.sessions);
    await users.changePassword(asUser, { oldPassword: text('oldPassword'), newPassword: text('newPassword') }, text('userId'));
    return { msg: 'ok' };
  }

  /** Files of the caller's application, through the files feature (its limits, quota and types apply). */
  private async files(caller: Caller, method: string, params: Json | undefined): Promise<Json> {
    const files = this.deps.files();
    if (!files) throw svcError('featureDisabled', 'files');
    const p = (params ?? {}) as Record<string, Json>;
    if (method === 'upload') {
      if (typeof p['filename'] !== 'string' || typeof p['data'] !== 'string') throw svcError('paramRequired', 'filename');
      return { ...(await files.put(caller, p['filename'], Buffer.from(p['data'], 'base64'))) };
    }
    const urls = Array.isArray(p['urls']) ? p['urls'].filter((u): u is string => typeof u === 'string') : [];
    const fail: string[] = [];
    for (const url of urls) if (!(await files.delete(caller, url))) fail.push(url);
    if (p['single'] === true && fail.length === 1) throw svcError('fileNotFound', fail[0]!.slice(0, 128));
    return fail.length === 0 ? { msg: 'ok' } : { msg: 'some files were not deleted', fail };
  }

  private timestamp(caller: Caller): Json {
    const now = this.deps.clock.now();
    return { timestamp: Math.floor(now / 1000), datetime: formatDateTime(now, caller.app.settings.timeZone) };
  }

  /** The Java oHttp request through the Node oHttp (same guard); bodies as UTF-8 text, the reply's as base64. */
  private async http(modules: FunctionModules, params: Json | undefined): Promise<Json> {
    const p = (params ?? {}) as { url?: unknown; method?: unknown; headers?: unknown; body?: unknown };
    if (typeof p.url !== 'string') throw svcError('invalidParameter', 'oHttp needs a url');
    const method = typeof p.method === 'string' ? p.method.toUpperCase() : 'GET';
    const headers: Record<string, string> = {};
    if (p.headers && typeof p.headers === 'object') for (const [k, v] of Object.entries(p.headers)) headers[k] = String(v);
    const body = typeof p.body === 'string' ? Buffer.from(p.body, 'base64').toString('utf8') : undefined;
    const options = { url: p.url, method, headers, ...(body !== undefined ? { body } : {}) };
    const result = (await (method === 'GET' ? modules.oHttp.get(options) : modules.oHttp.post(options)))!;
    return { statusCode: result.statusCode, statusText: '', headers: result.headers, body: Buffer.from(result.body, 'utf8').toString('base64') };
  }
}
