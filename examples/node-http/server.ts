/**
 * The quick start: `npm install && npm start`. A real svcbase server on node:http and SQLite (or
 * PostgreSQL and Redis, for several instances: see below), with a
 * development application whose keys are fixed (override them with env variables), `$regex` and
 * email verification on, an unlimited SMS quota, and SMS/mail "sent" to this terminal.
 *
 *   HOST (127.0.0.1)  PORT (3000)  SVC_DB (./data/svcbase.db)  SVC_APP_ID  SVC_REST_KEY  SVC_MASTER_KEY
 *   SVC_SECRET_KEY  SVC_SECURITY_CODE  SVC_PUBLIC_URL (base of mailed links; default the listen URL)
 *   SVC_DATABASE_URL (postgres://...: tables in PostgreSQL instead of SQLite)
 *   SVC_REDIS_URL (redis://...: KvStore and CounterStore in Redis; without it they live in SQLite,
 *   or in PostgreSQL's process when SVC_DATABASE_URL is set: run one instance then, docs/scaling.md;
 *   with it, realtime events and access-cache invalidations also fan out between instances over Redis pub/sub)
 *   SVC_FILES (uploads' folder on PostgreSQL; on SQLite they live beside the database file)
 *   SVC_FUNCTIONS_DIR (./functions: every <name>.js there is deployed at start-up into the sandbox, every <name>.java compiled)
 *   SVC_VAPID_PUBLIC_KEY, SVC_VAPID_PRIVATE_KEY, SVC_VAPID_SUBJECT (Web Push for POST /1/push; without
 *   them /1/push answers 11199; `npx web-push generate-vapid-keys` makes a pair)
 *   SVC_AI_BASE_URL, SVC_AI_API_KEY, SVC_AI_MODEL (an OpenAI-compatible API for AI chat at
 *   ws://HOST:PORT/1/ai/<secretKey>; without a base URL that route answers 11190)
 *   SVC_WECHAT_APPID, SVC_WECHAT_SECRET, SVC_WECHAT_API_BASE (the mini-program platform: login by
 *   openid, content checks, messages, codes; without an appid those routes answer 11205), and
 *   SVC_WECHAT_MCHID, SVC_WECHAT_PAY_KEY, SVC_WECHAT_PAY_API_BASE (WeChat Pay v2 for POST /1/pay;
 *   notifications come to <public URL>/1/pay/notify/<applicationId>), docs/wechat.md
 *
 * Realtime subscriptions are on: ws://HOST:PORT/1/realtime (docs/realtime.md) and the SDK's /socket.io/.
 *
 * One log line per request (method, path, status, ms, request id); socket limits from ../server-limits.ts.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { Redis } from 'ioredis';
import postgres from 'postgres';
import { exampleFunctions } from './functions.js';
import { type AiOptions, type ApplicationConfig, type PushOptions, type Service, type ServiceOptions, consoleMailTransport, openAiCompatibleProvider, webPushTransport, consoleSmsTransport, createService, lineLogger, localFileStore } from 'svcbase';
import { toNodeListener } from 'svcbase/node';
import { postgresStorage } from 'svcbase/postgres';
import { redisCounterStore, redisEventBus, redisKvStore } from 'svcbase/redis';
import { sqliteCounterStore, sqliteKvStore, sqliteStorage } from 'svcbase/sqlite';
import { applyServerLimits } from '../server-limits.js';
import { closeGracefully, closeOnSignals, trackRequests } from '../graceful.js';

const env = process.env;
const print = (line: string) => process.stdout.write(line + '\n');

/** `publicUrl`: where clients reach this server, the base of mailed links (SVC_PUBLIC_URL, else the listen URL). */
export function devApplication(publicUrl?: string): ApplicationConfig {
  const wechat = wechatFromEnv(env.SVC_APP_ID ?? 'dev-app-id', env.SVC_PUBLIC_URL ?? publicUrl ?? `http://127.0.0.1:${env.PORT ?? 3000}`);
  return {
    applicationId: env.SVC_APP_ID ?? 'dev-app-id',
    restApiKey: env.SVC_REST_KEY ?? 'dev-rest-key',
    masterKey: env.SVC_MASTER_KEY ?? 'dev-master-key',
    secretKey: env.SVC_SECRET_KEY ?? 'dev-secret-key',
    securityCode: env.SVC_SECURITY_CODE ?? 'dev-safe-code',
    settings: {
      features: { regex: true, emailVerification: true, realtime: true },
      users: { linkBaseUrl: env.SVC_PUBLIC_URL ?? publicUrl ?? `http://127.0.0.1:${env.PORT ?? 3000}` },
      sms: {
        quota: 'unlimited',
        templates: [
          { name: 'order-shipped', kind: 'notification', approved: true, text: 'Your order ${order} has shipped, arriving ${day}.' },
          { name: 'login-captcha', kind: 'code', approved: true, captchaRequired: true, validityMinutes: 5, text: 'Login code ${code}, valid 5 minutes.' },
        ],
      },
    },
    ...(wechat ? { featureSettings: { wechat } } : {}),
  };
}

/** The mini-program platform and WeChat Pay from SVC_WECHAT_*; none without an appid and secret. */
function wechatFromEnv(applicationId: string, publicUrl: string): Record<string, unknown> | undefined {
  const appId = env.SVC_WECHAT_APPID ?? '';
  const secret = env.SVC_WECHAT_SECRET ?? '';
  if (!appId || !secret) return undefined;
  const miniProgram = { appId, secret, ...(env.SVC_WECHAT_API_BASE ? { apiBase: env.SVC_WECHAT_API_BASE } : {}) };
  const mchId = env.SVC_WECHAT_MCHID ?? '';
  const key = env.SVC_WECHAT_PAY_KEY ?? '';
  const pay =
    mchId && key
      ? { mchId, key, notifyUrl: `${publicUrl.replace(/\/+$/, '')}/1/pay/notify/${applicationId}`, ...(env.SVC_WECHAT_PAY_API_BASE ? { apiBase: env.SVC_WECHAT_PAY_API_BASE } : {}) }
      : null;
  return { miniProgram, pay };
}

export interface StartOptions {
  /** 0 picks a free port (tests). Default: `PORT`, else 3000. */
  port?: number;
  /** Default: `HOST`, else 127.0.0.1. */
  host?: string;
  dbFile?: string;
  /** postgres://... for tables in PostgreSQL (default: `SVC_DATABASE_URL`; empty: SQLite). */
  databaseUrl?: string;
  /** redis://... for the KvStore and CounterStore (default: `SVC_REDIS_URL`; empty: SQLite or memory). */
  redisUrl?: string;
  /** Key prefix in Redis (default `svc:`). */
  redisPrefix?: string;
  quiet?: boolean;
  /** Cloud function sources deployed at start-up (default: `SVC_FUNCTIONS_DIR`, else ./functions). */
  functionsDir?: string;
  /** AI chat's provider and model (default: from SVC_AI_BASE_URL, SVC_AI_API_KEY and SVC_AI_MODEL). */
  ai?: AiOptions;
  /** Where log lines go (default: stdout, or nowhere when `quiet`). */
  write?: (line: string) => void;
}

/** Starts the server; resolves once it listens, rejects with the listen error (e.g. EADDRINUSE). */
export async function start(options: StartOptions = {}) {
  const databaseUrl = options.databaseUrl ?? env.SVC_DATABASE_URL ?? '';
  const redisUrl = options.redisUrl ?? env.SVC_REDIS_URL ?? '';
  const stores = openStores(options, databaseUrl, redisUrl);
  const dbFile = stores.where;
  const log = options.write ?? (options.quiet ? () => {} : print);
  const logger = lineLogger((line) => log(`[svcbase] ${line}`), 'info');
  // Listen first: the listen URL is the base of mailed links unless SVC_PUBLIC_URL says otherwise.
  const server = applyServerLimits(createServer());
  const port = options.port ?? Number(env.PORT ?? 3000);
  const host = options.host ?? env.HOST ?? '127.0.0.1';
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    await stores.close();
    throw error;
  }
  const address = server.address() as AddressInfo;
  const url = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
  const service = createService({
    ...stores.options,
    applications: [devApplication(url)],
    brands: ['Svc', 'Bmob'],
    sms: { transport: consoleSmsTransport({ write: (line) => log(`[sms] ${line}`) }) },
    mail: consoleMailTransport({ write: (line) => log(`[mail] ${line}`) }),
    // Uploads live beside the SQLite file (./data/files by default), or in ./data/files on PostgreSQL.
    files: { store: localFileStore({ root: stores.filesDir }) },
    // Cloud functions: POST /1/functions/<name>, and GET|POST /<secretKey>/<name> at the root.
    functions: { definitions: exampleFunctions },
    ai: options.ai ?? aiFromEnv(),
    push: pushFromEnv(),
    logger,
    // One line per request with its X-Request-Id (the client's own when sane, else a fresh one).
    accessLog: true,
  });
  const deployed = await deployFunctionsDir(service, resolve(options.functionsDir ?? env.SVC_FUNCTIONS_DIR ?? 'functions'), devApplication(url), log);
  const inFlight = trackRequests(server);
  server.on('request', toNodeListener(service));
  server.on('upgrade', (request, socket, head) => service.handleUpgrade(request, socket, head));
  return {
    url,
    dbFile,
    server,
    /** Names of the functions deployed from the functions folder. */
    deployed,
    /** Graceful: stops accepting, lets requests in flight finish (up to `graceMs`), then closes everything. */
    async close(graceMs = 10_000) {
      await closeGracefully(server, inFlight, async () => {
        await service.close();
        await stores.close();
      }, graceMs);
    },
  };
}

/**
 * Deploys every `<name>.js` (and `<name>.java`: a Java function's method, compiled when a JDK is
 * installed) of `dir` as a cloud function, through the same route an operator uses
 * (`PUT /1/cloudCode/<name>` with the master key). A file that does not deploy (a syntax error, a bad
 * name, no JDK) is reported and skipped.
 */
async function deployFunctionsDir(service: Service, dir: string, app: ApplicationConfig, log: (line: string) => void): Promise<string[]> {
  if (!existsSync(dir)) return [];
  const deployed: string[] = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.js') || f.endsWith('.java')).sort()) {
    const java = file.endsWith('.java');
    const name = file.slice(0, java ? -5 : -3);
    const body = JSON.stringify({ language: java ? 'java' : 'node', source: readFileSync(join(dir, file), 'utf8') });
    const reply = await service.handle({
      method: 'PUT',
      path: `/1/cloudCode/${encodeURIComponent(name)}`,
      search: '',
      headers: { 'x-svc-application-id': app.applicationId, 'x-svc-master-key': app.masterKey, 'content-type': 'application/json' },
      body: new TextEncoder().encode(body),
    });
    if (reply.status === 200) deployed.push(name);
    else log(`[functions] ${file} was not deployed: ${typeof reply.body === 'string' ? reply.body : new TextDecoder().decode(reply.body)}`);
  }
  return deployed;
}

/** Web Push from SVC_VAPID_PUBLIC_KEY / SVC_VAPID_PRIVATE_KEY / SVC_VAPID_SUBJECT; no transport without the keys. */
function pushFromEnv(): PushOptions {
  const publicKey = env.SVC_VAPID_PUBLIC_KEY ?? '';
  const privateKey = env.SVC_VAPID_PRIVATE_KEY ?? '';
  if (!publicKey || !privateKey) return {};
  return { webPush: webPushTransport({ vapid: { publicKey, privateKey, subject: env.SVC_VAPID_SUBJECT ?? 'mailto:admin@localhost' } }) };
}

/** AI chat's provider from SVC_AI_BASE_URL / SVC_AI_API_KEY / SVC_AI_MODEL; none without a base URL. */
function aiFromEnv(): AiOptions {
  const baseUrl = env.SVC_AI_BASE_URL ?? '';
  if (!baseUrl) return {};
  return {
    provider: openAiCompatibleProvider({ baseUrl, ...(env.SVC_AI_API_KEY ? { apiKey: env.SVC_AI_API_KEY } : {}) }),
    ...(env.SVC_AI_MODEL ? { model: env.SVC_AI_MODEL } : {}),
  };
}

/**
 * The stores: PostgreSQL tables when a database URL is given (else SQLite in `dbFile`), Redis
 * KvStore/CounterStore when a Redis URL is given (else SQLite beside the tables, or, on PostgreSQL
 * without Redis, the service's in-process defaults: one instance only).
 */
function openStores(options: StartOptions, databaseUrl: string, redisUrl: string) {
  const closers: Array<() => Promise<void> | void> = [];
  const picked: Pick<ServiceOptions, 'storage' | 'kv' | 'counters' | 'bus'> = {} as Pick<ServiceOptions, 'storage' | 'kv' | 'counters' | 'bus'>;
  let where: string;
  let filesDir: string;
  let db: Database.Database | null = null;
  if (databaseUrl) {
    const sql = postgres(databaseUrl, { max: 10, onnotice: () => {} });
    closers.push(() => sql.end({ timeout: 5 }));
    picked.storage = postgresStorage({ sql });
    where = `PostgreSQL ${databaseUrl.replace(/\/\/[^@/]*@/, '//')}`;
    filesDir = resolve(env.SVC_FILES ?? 'data/files');
  } else {
    const dbFile = resolve(options.dbFile ?? env.SVC_DB ?? 'data/svcbase.db');
    mkdirSync(dirname(dbFile), { recursive: true });
    const database = new Database(dbFile);
    db = database;
    // The storage closes the file with the service; this covers a failed listen (no service yet).
    closers.push(() => void (database.open && database.close()));
    picked.storage = sqliteStorage({ database });
    where = dbFile;
    filesDir = resolve(dirname(dbFile), 'files');
  }
  if (redisUrl) {
    const redis = new Redis(redisUrl);
    closers.push(async () => void (await redis.quit()));
    const prefix = options.redisPrefix ?? 'svc:';
    picked.kv = redisKvStore({ client: redis, prefix: `${prefix}kv:` });
    picked.counters = redisCounterStore({ client: redis, prefix: `${prefix}rate:` });
    // Pub/sub needs a connection of its own.
    const subscriber = new Redis(redisUrl);
    closers.push(async () => void (await subscriber.quit()));
    // Realtime fan-out and the access caches' invalidations between instances.
    picked.bus = redisEventBus({ publisher: redis, subscriber, prefix: `${prefix}bus:` });
    where += `, Redis ${redisUrl.replace(/\/\/[^@/]*@/, '//')}`;
  } else if (db) {
    picked.kv = sqliteKvStore({ database: db });
    picked.counters = sqliteCounterStore({ database: db });
  }
  return {
    options: picked,
    where,
    filesDir,
    async close() {
      for (const close of closers.reverse()) await close();
    },
  };
}

function banner(url: string, dbFile: string, deployed: readonly string[] = []): string {
  const app = devApplication();
  const keys = `-H 'X-Svc-Application-Id: ${app.applicationId}' -H 'X-Svc-REST-API-Key: ${app.restApiKey}'`;
  return [
    `svcbase listening on ${url} (${dbFile.startsWith('PostgreSQL') ? dbFile : `SQLite: ${dbFile}`})`,
    '',
    'Dev application keys:',
    `  applicationId  ${app.applicationId}`,
    `  REST API key   ${app.restApiKey}`,
    `  master key     ${app.masterKey}`,
    `  secret key     ${app.secretKey}`,
    `  security code  ${app.securityCode}`,
    '',
    'Try:',
    `curl -s -X POST ${url}/1/classes/GameScore ${keys} -H 'Content-Type: application/json' -d '{"score":1337,"playerName":"Sean"}'`,
    `curl -s -G ${url}/1/classes/GameScore ${keys} --data-urlencode 'where={"score":{"$gte":1000}}' --data-urlencode 'order=-score'`,
    `curl -s -X POST ${url}/1/requestSmsCode ${keys} -H 'Content-Type: application/json' -d '{"mobilePhoneNumber":"13800138000"}'`,
    `curl -s -X POST ${url}/1/functions/hello ${keys} -H 'Content-Type: application/json' -d '{"name":"svcbase"}'`,
    '',
    `A cloud function over plain HTTP (secret key in the path): ${url}/${app.secretKey}/hello?name=svcbase`,
    ...(deployed.length > 0 ? [`Deployed from the functions folder (QuickJS sandbox): ${deployed.map((name) => `${url}/${app.secretKey}/${name}`).join(' ')}`] : []),
    `AI chat (Bmob.ChatAI()): ${url.replace('http', 'ws')}/1/ai/${app.secretKey}${env.SVC_AI_BASE_URL ? '' : ' (set SVC_AI_BASE_URL, SVC_AI_API_KEY and SVC_AI_MODEL to enable it)'}`,
    '',
  ].join('\n');
}

/** One line for a failed listen, instead of an unhandled 'error' event stack. */
export function listenFailure(error: NodeJS.ErrnoException, host = env.HOST ?? '127.0.0.1', port = env.PORT ?? '3000'): string {
  const where = `${host}:${port}`;
  if (error.code === 'EADDRINUSE') return `svcbase: cannot listen on ${where}: the port is in use (set PORT to a free port)`;
  if (error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND') return `svcbase: cannot listen on ${where}: no such local address (check HOST)`;
  if (error.code === 'EACCES') return `svcbase: cannot listen on ${where}: permission denied (use a port above 1023)`;
  return `svcbase: cannot listen on ${where}: ${error.message}`;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const started = await start().catch((error: NodeJS.ErrnoException) => {
    process.stderr.write(listenFailure(error) + '\n');
    process.exit(1);
  });
  const { url, dbFile, close, deployed } = started;
  print(banner(url, dbFile, deployed));
  closeOnSignals(() => close());
}

export { banner };
