import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { type AiOptions, type ApplicationConfig, type Service, consoleMailTransport, consoleSmsTransport, createService, lineLogger, localFileStore } from '../index.js';
import { type ServerLimitOptions, applyServerLimits, closeGracefully, trackRequests } from '../http/host/node-server.js';
import { toNodeListener } from '../node.js';
import { aiFromEnv, devApplication, extraApplications, pushFromEnv } from './dev-application.js';
import { quickStartFunctions } from './quick-start-functions.js';
import { type OpenedStores, openStores } from './stores.js';

type Env = Readonly<Record<string, string | undefined>>;

export interface StartOptions {
  /** 0 picks a free port (tests). Default: `PORT`, else 3000. */
  port?: number;
  /** Default: `HOST`, else 127.0.0.1. */
  host?: string;
  /** SQLite file (default: `SVC_DB`, else ./data/svcbase.db). */
  dbFile?: string;
  /** postgres://... for tables in PostgreSQL (default: `SVC_DATABASE_URL`; empty: SQLite). */
  databaseUrl?: string;
  /** redis://... for the KvStore, CounterStore and event bus (default: `SVC_REDIS_URL`; empty: SQLite or memory). */
  redisUrl?: string;
  /** Key prefix in Redis (default: `SVC_REDIS_PREFIX`, else `svc:`); the application id follows it in every key. */
  redisPrefix?: string;
  quiet?: boolean;
  /** Cloud function sources deployed at start-up (default: `SVC_FUNCTIONS_DIR`, else ./functions). */
  functionsDir?: string;
  /** AI chat's provider and model (default: from SVC_AI_BASE_URL, SVC_AI_API_KEY and SVC_AI_MODEL). */
  ai?: AiOptions;
  /** Where log lines go (default: stdout, or nowhere when `quiet`). */
  write?: (line: string) => void;
  /** The environment read for every default (default `process.env`). */
  env?: Env;
  /** Socket limits of the server (default `SERVER_LIMITS`; tests pass small ones and a fake clock and ticker). */
  serverLimits?: ServerLimitOptions;
}

/** The server `svcbase serve` runs, once it listens. */
export interface StartedServer {
  readonly url: string;
  /** The SQLite file, or `PostgreSQL <url>` (and `, Redis <url>`). */
  readonly dbFile: string;
  readonly server: ReturnType<typeof createServer>;
  readonly service: Service;
  /** Names of the functions deployed from the functions folder. */
  readonly deployed: readonly string[];
  /** What start-up has to say after the banner: the functions folder's files that were not deployed, and why. */
  readonly notes: readonly string[];
  /** Graceful: stops accepting, lets requests in flight finish (up to `graceMs`), then closes everything. */
  close(graceMs?: number): Promise<void>;
}

const print = (line: string) => process.stdout.write(line + '\n');

/** The stores `options` (or the environment) name. */
export function storesFor(options: Pick<StartOptions, 'dbFile' | 'databaseUrl' | 'redisUrl' | 'redisPrefix' | 'env'>): OpenedStores {
  const env = options.env ?? process.env;
  return openStores({
    dbFile: options.dbFile ?? env.SVC_DB ?? 'data/svcbase.db',
    databaseUrl: options.databaseUrl ?? env.SVC_DATABASE_URL ?? '',
    redisUrl: options.redisUrl ?? env.SVC_REDIS_URL ?? '',
    redisPrefix: options.redisPrefix ?? (env.SVC_REDIS_PREFIX || 'svc:'),
    applicationId: devApplication(env).applicationId,
    filesDir: env.SVC_FILES ?? 'data/files',
  });
}

/**
 * The quick start's service over opened stores: the dev application, SMS and mail "sent" to the log,
 * uploads in the stores' files folder, the example host functions, AI chat and push from the
 * environment, and one access-log line per request.
 */
export function quickStartService(stores: OpenedStores, publicUrl: string, log: (line: string) => void, env: Env, ai?: AiOptions, unlogged?: string): Service {
  const lines = lineLogger((line) => log(`[svcbase] ${line}`), 'info');
  // The access log leaves out the requests start-up makes itself (their X-Request-Id starts with `unlogged`).
  const logger = unlogged === undefined ? lines : { ...lines, info: (message: string, fields?: Record<string, unknown>) => {
    if (typeof fields?.['requestId'] === 'string' && fields['requestId'].startsWith(unlogged)) return;
    lines.info(message, fields);
  } };
  return createService({
    storage: stores.storage,
    ...(stores.kv ? { kv: stores.kv } : {}),
    ...(stores.counters ? { counters: stores.counters } : {}),
    ...(stores.bus ? { bus: stores.bus } : {}),
    // SVC_EXTRA_APPS: further applications beside the dev one (docs/cli.md).
    applications: [devApplication(env, publicUrl), ...extraApplications(env, publicUrl)],
    brands: ['Svc', 'Bmob'],
    sms: { transport: consoleSmsTransport({ write: (line) => log(`[sms] ${line}`) }) },
    mail: consoleMailTransport({ write: (line) => log(`[mail] ${line}`) }),
    files: { store: localFileStore({ root: stores.filesDir }) },
    // Cloud functions: POST /1/functions/<name>, and GET|POST /<secretKey>/<name> at the root.
    functions: { definitions: quickStartFunctions },
    ai: ai ?? aiFromEnv(env),
    push: pushFromEnv(env),
    logger,
    // One line per request with its X-Request-Id (the client's own when sane, else a fresh one).
    accessLog: true,
    // The admin console at /console: sign in with the application id and the master key.
    console: true,
    // Its dashboard's history; GET /metrics for a Prometheus with SVC_METRICS_TOKEN.
    metrics: { ...(env.SVC_METRICS_TOKEN ? { token: env.SVC_METRICS_TOKEN } : {}), ...(env.SVC_METRICS_INTERVAL_MS ? { intervalMs: Number(env.SVC_METRICS_INTERVAL_MS) } : {}) },
  });
}

/**
 * Connections the kernel may hold for the server to accept (capped by `net.core.somaxconn`, 4096 on
 * Linux since 5.4). Node's default, 511, overflows when a busy event loop meets a burst of connects:
 * the kernel then drops the handshakes it cannot queue and the clients' retries arrive seconds later,
 * so the socket limits start counting late (the soak's silent sockets lived up to 58 s; D212).
 */
export const LISTEN_BACKLOG = 4096;

/** Starts the server; resolves once it listens, rejects with the listen error (e.g. EADDRINUSE). */
export async function start(options: StartOptions = {}): Promise<StartedServer> {
  const env = options.env ?? process.env;
  const stores = storesFor(options);
  const log = options.write ?? (options.quiet ? () => {} : print);
  // Listen first: the listen URL is the base of mailed links unless SVC_PUBLIC_URL says otherwise.
  const server = applyServerLimits(createServer(), options.serverLimits);
  // Requests that arrive between the listen and the service's creation wait for it: without a
  // listener Node would leave them unanswered for good (a restarted instance behind a balancer).
  let listener: ((request: IncomingMessage, response: ServerResponse) => void) | undefined;
  const early: Array<[IncomingMessage, ServerResponse]> = [];
  const inFlight = trackRequests(server);
  server.on('request', (request, response) => (listener ? listener(request, response) : early.push([request, response])));
  try {
    // The commands client queues nothing (fail fast): wait for Redis once, before the first command.
    await stores.connected();
    // Redis keys written before the application id was part of them stay readable.
    await stores.carryOver();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ port: options.port ?? Number(env.PORT ?? 3000), host: options.host ?? env.HOST ?? '127.0.0.1', backlog: LISTEN_BACKLOG }, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    // No service owns the storage yet: close it here (its checkpointer worker would keep the process alive).
    await stores.storage.close();
    await stores.close();
    throw error;
  }
  const address = server.address() as AddressInfo;
  const url = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
  // Start-up's own requests (deploying the functions folder) stay out of the access log: the first
  // request line is a client's, after the banner.
  const startup = `svcbase-startup-${randomUUID()}`;
  const service = quickStartService(stores, url, log, env, options.ai, startup);
  const notes: string[] = [];
  const deployed = await deployFunctionsDir(service, resolve(options.functionsDir ?? env.SVC_FUNCTIONS_DIR ?? 'functions'), devApplication(env, url), (line) => void notes.push(line), startup);
  listener = toNodeListener(service);
  for (const [request, response] of early.splice(0)) listener(request, response);
  server.on('upgrade', (request, socket, head) => service.handleUpgrade(request, socket, head));
  return {
    url,
    dbFile: stores.where,
    server,
    service,
    deployed,
    notes,
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
async function deployFunctionsDir(service: Service, dir: string, app: ApplicationConfig, log: (line: string) => void, requestId: string): Promise<string[]> {
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
      headers: { 'x-svc-application-id': app.applicationId, 'x-svc-master-key': app.masterKey, 'content-type': 'application/json', 'x-request-id': `${requestId}-${deployed.length}` },
      body: new TextEncoder().encode(body),
    });
    if (reply.status === 200) deployed.push(name);
    else log(`[functions] ${file} was not deployed: ${typeof reply.body === 'string' ? reply.body : new TextDecoder().decode(reply.body)}`);
  }
  return deployed;
}

/** What `svcbase serve` prints once it listens: where, the keys, and commands to try. */
export function banner(url: string, dbFile: string, deployed: readonly string[] = [], env: Env = process.env): string {
  const app = devApplication(env);
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
    ...extraApplications(env).map((extra) => `Also serving (SVC_EXTRA_APPS): ${extra.applicationId}`),
    '',
    'Try:',
    `curl -s -X POST ${url}/1/classes/GameScore ${keys} -H 'Content-Type: application/json' -d '{"score":1337,"playerName":"Sean"}'`,
    `curl -s -G ${url}/1/classes/GameScore ${keys} --data-urlencode 'where={"score":{"$gte":1000}}' --data-urlencode 'order=-score'`,
    `curl -s -X POST ${url}/1/requestSmsCode ${keys} -H 'Content-Type: application/json' -d '{"mobilePhoneNumber":"13800138000"}'`,
    `curl -s -X POST ${url}/1/functions/hello ${keys} -H 'Content-Type: application/json' -d '{"name":"svcbase"}'`,
    '',
    `A cloud function over plain HTTP (secret key in the path): ${url}/${app.secretKey}/hello?name=svcbase`,
    ...(deployed.length > 0 ? [`Deployed from the functions folder (QuickJS sandbox): ${deployed.map((name) => `${url}/${app.secretKey}/${name}`).join(' ')}`] : []),
    `Admin console: ${url}/console (sign in with the applicationId and the master key)`,
    `AI chat (Bmob.ChatAI()): ${url.replace('http', 'ws')}/1/ai/${app.secretKey}${env.SVC_AI_BASE_URL ? '' : ' (set SVC_AI_BASE_URL, SVC_AI_API_KEY and SVC_AI_MODEL to enable it)'}`,
    '',
  ].join('\n');
}

/** One line for a failed listen, instead of an unhandled 'error' event stack. */
export function listenFailure(error: NodeJS.ErrnoException, host: string, port: string): string {
  const where = `${host}:${port}`;
  if (error.code === 'EADDRINUSE') return `svcbase: cannot listen on ${where}: the port is in use (set PORT to a free port)`;
  if (error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND') return `svcbase: cannot listen on ${where}: no such local address (check HOST)`;
  if (error.code === 'EACCES') return `svcbase: cannot listen on ${where}: permission denied (use a port above 1023)`;
  return `svcbase: cannot listen on ${where}: ${error.message}`;
}
