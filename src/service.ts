import { type ApplicationConfig, type Application, checkedPublicUrl } from './app/application.js';
import { createAppRegistry } from './app/registry.js';
import { type Clock, systemClock } from './core/clock.js';
import { configError, svcError } from './core/errors.js';
import { type PublishedApis, composeFeatures, legacyFeature } from './features/compose.js';
import type { FeatureDefinition } from './features/contract.js';
import { SESSIONS } from './features/sessions-key.js';
import { type Logger, silentLogger } from './core/logger.js';
import { type Random, cryptoRandom } from './core/random.js';
import { createRequestHandler } from './http/handler.js';
import { openApiRoute } from './http/openapi-route.js';
import type { Feature, ServiceContext } from './features/contract.js';
import type { RouteDef } from './features/routes.js';
import type { SessionResolver } from './app/caller.js';
import type { SvcRequest, SvcResponse } from './http/types.js';
import { type UpgradeHandler, type UpgradeServer, createUpgradeServer, nodeUpgradeHandler } from './http/upgrade.js';
import { memoryKvStore } from './kv/memory-kv.js';
import type { KvStore } from './kv/port.js';
import { type AiOptions, aiFeature } from './ai/ai-feature.js';
import { type PushOptions, pushFeature } from './push/push-feature.js';
import { type WechatOptions, wechatFeature } from './wechat/wechat-feature.js';
import type { PushService } from './push/push-service.js';
import type { EventBus } from './events/port.js';
import { writePipeline } from './records/pipeline/write-pipeline.js';
import type { StorageAdapter } from './storage/port.js';
import { type WriteObserver, WriteObservers } from './events/write-event.js';
import type { WriteHookRegistry, WriteHooksConfig } from './events/write-hook-types.js';
import { WriteHooks } from './records/pipeline/write-hooks.js';
import { systemFeature } from './system/system-feature.js';
import { type ConsoleOptions, consoleFeature } from './console/console-feature.js';
import { type MetricsOptions, createServiceMetrics } from './metrics/metrics-feature.js';
import { noMetrics } from './core/metrics.js';
import { CAPTCHA, type CaptchaApi, type CaptchaFeatureOptions, captchaFeature } from './captcha/index.js';
import { memoryCounterStore } from './counters/memory-counter-store.js';
import type { CounterStore } from './counters/port.js';
import type { MailTransport } from './mail/port.js';
import { RECORDS, type RecordsFeature, recordsFeature } from './records/index.js';
import { SMS, type SmsFeatureOptions, smsFeature } from './sms/index.js';
import { unconfiguredSmsFeature } from './sms/unconfigured.js';
import { USERS, type UsersFeature, type UsersFeatureOptions, usersFeature } from './users/index.js';
import type { SmsApi } from './sms/sms-api.js';
import { FILES, type FilesApi, type FilesOptions, filesFeature } from './files/index.js';
import { type RealtimeOptions, realtimeFeature } from './realtime/index.js';
import type { ClassPermissionSource } from './access/class-permission-source.js';
import { type FunctionsOptions, functionsFeature } from './functions/index.js';

/**
 * The older feature form: a factory given the service context and the registry, returning routes.
 *
 * @deprecated Write a `FeatureDefinition` (`{ id, requires, init }`, docs/features.md); factories
 * still work and start after the built-in features.
 */
export type FeatureFactory = (ctx: ServiceContext, service: ServiceRegistry) => Feature;

/** Keys of the built-in features' APIs (`ctx.use(RECORDS)`, `ctx.find(SMS)`): each feature owns its own. */
export { CAPTCHA } from './captcha/index.js';
export { SMS } from './sms/index.js';
export { RECORDS } from './records/index.js';
export { USERS } from './users/index.js';
export { FILES } from './files/index.js';
export { SESSIONS } from './features/sessions-key.js';

/**
 * What the built-in features publish, as one typed object (`service.registry`): a view over the
 * published APIs, kept for hosts and feature factories written before feature keys. New code uses
 * `ctx.use(KEY)` / `ctx.find(KEY)`.
 */
export interface ServiceRegistry {
  /** Session tokens → users (the users feature). */
  sessions?: SessionResolver;
  /** validate_token checks (the captcha feature). */
  captcha?: CaptchaApi;
  /** Codes, notifications, status, quota (the SMS feature, when a transport is configured). */
  sms?: SmsApi;
  /** Class policies of data tables (the records feature). */
  records?: RecordsFeature;
  users?: UsersFeature;
  /** Files by caller (the files feature, when on). */
  files?: FilesApi;
  /** Push notifications: `send(caller, body)` and `idle()` (the push feature). */
  push?: PushService;
}


/** The registry view over `apis`: reading a field looks its key up; assigning one publishes it. */
export function registryView(apis: PublishedApis): ServiceRegistry {
  const view = {} as ServiceRegistry;
  const fields: ReadonlyArray<[keyof ServiceRegistry, string]> = [
    ['sessions', SESSIONS.id],
    ['captcha', CAPTCHA.id],
    ['sms', SMS.id],
    ['records', RECORDS.id],
    ['users', USERS.id],
    ['files', FILES.id],
    ['push', 'push'],
  ];
  for (const [field, id] of fields) {
    Object.defineProperty(view, field, {
      enumerable: true,
      get: () => apis.get(id),
      set: (value: unknown) => {
        if (value === undefined) apis.delete(id);
        else apis.set(id, value);
      },
    });
  }
  return view;
}


export interface ServiceOptions {
  /** Where tables live: `memoryStorage()` from `svcbase/memory`, `sqliteStorage()` from `svcbase/sqlite`, or your adapter. */
  storage: StorageAdapter;
  /** One or many applications, each with its own keys, settings and data namespace. */
  applications: ApplicationConfig[];
  /**
   * Header brands accepted: `X-<Brand>-Application-Id` etc. Default `['Svc']`; add `'Bmob'` so existing
   * clients of the hosted service work unchanged.
   */
  brands?: string[];
  /** Short-lived secrets (codes, tokens, nonces). Default: in memory; use a shared store across instances. */
  kv?: KvStore;
  /**
   * The event bus the service's instances share (`redisEventBus` from `svcbase/redis`,
   * `postgresEventBus` from `svcbase/postgres`). Role and class-permission changes made on one
   * instance clear the others' caches at once through it (otherwise within 5 s), and realtime fans
   * out through it unless `realtime.bus` names another. Default: none (one instance).
   */
  bus?: EventBus;
  clock?: Clock;
  random?: Random;
  logger?: Logger;
  /**
   * Largest request body in bytes (default 1 MiB); larger bodies get 413 with code 11002. The one
   * body limit: every host glue enforces it while reading; a route may declare its own (`RouteDef.bodyLimit`).
   */
  bodyLimit?: number;
  /** Deepest JSON nesting accepted (default 32). */
  maxBodyDepth?: number;
  /**
   * Largest JSON reply body in UTF-8 bytes (default 128 MiB): a route whose reply would be larger
   * answers 400 with code 11092 instead (as does one past what a JavaScript string can hold, about
   * 512 M characters). A safety net under the limits that keep replies small in the first place
   * (`settings.query.maxLimit`, `settings.query.maxIncludeBytes`); streamed and binary bodies (files)
   * are not counted.
   */
  maxResponseBytes?: number;
  /** Accepted clock skew of signed requests in ms (default 10 000, as documented by the hosted service). */
  signatureSkewMs?: number;
  /** Origins allowed by CORS (default `*`). */
  corsOrigins?: '*' | string[];
  /**
   * The public base URL clients reach the service at, mount prefix included
   * (`https://api.example.com/api`): the base of every absolute URL it hands out (uploaded files'
   * urls, captcha image links, `Location` headers, mailed links), for applications that name no
   * `publicUrl` of their own. Never taken from a request header. Default: the address the server
   * listens on (node, Fastify; a fetch runtime has none, so urls are relative to the origin there),
   * and mailed links answer 11101 until one is set (docs/mounting.md, "Public URL").
   */
  publicUrl?: string;
  /**
   * An access log: one `info` line per request through the logger (`GET /1/classes/Post 200 3ms
   * {"requestId":"..."}`, no query string) and `X-Request-Id` on every response (the client's own when
   * short and plain, else a fresh UUID). Default off: a client's own X-Request-Id is still echoed.
   */
  accessLog?: boolean;
  /** Rate-limit counters shared by SMS send limits and login throttling. Default: in memory. */
  counters?: CounterStore;
  /**
   * SMS: verification codes, notifications, status, with a transport (`memorySmsTransport()`,
   * `consoleSmsTransport()`, `tencentSmsTransport({...})` or yours). Without it the SMS routes
   * answer 11007 (no SMS transport configured).
   */
  sms?: Omit<SmsFeatureOptions, 'counters' | 'captcha'>;
  /** Where verification and password-reset mails go. Without it those flows answer 11007. */
  mail?: MailTransport;
  /** Image captcha (default on; `@napi-rs/canvas` loads at start-up, and without it requestCaptcha answers 11007). `false` leaves it out. */
  captcha?: false | CaptchaFeatureOptions;
  /** Users, sessions and passwords (default on). `false` leaves them out. */
  users?: false | Omit<UsersFeatureOptions, 'mail' | 'sms' | 'counters' | 'classPolicies'>;
  /**
   * Realtime table subscriptions over WebSocket (default on; served to applications whose
   * `features.realtime` setting is on, others get 11007). `false` leaves them out. See docs/realtime.md.
   */
  realtime?: false | RealtimeOptions;
  /**
   * Class-level permissions and protected fields per table (docs/access-control.md): where the
   * records and users services read them. Default: the ones the schema API stores (`PUT /1/schemas/:table`).
   */
  classPermissions?: ClassPermissionSource;
  /**
   * Cloud functions defined by the host: `{ definitions: { hello: (request, response, modules) => ... } }`,
   * served at `POST /1/functions/:name` and `<path>/:secretKey/:name` (docs/functions.md).
   */
  functions?: FunctionsOptions;
  /**
   * Files and media (uploads, serving, delete, video snapshot, QR codes, image checks): off unless
   * given; `{}` stores under ./data/files on local disk. See docs/files.md.
   */
  files?: false | FilesOptions;
  /**
   * AI chat over WebSocket at `/1/ai/<secretKey>` (the SDK's `Bmob.ChatAI()`): a model provider and
   * default model; per-application settings in `featureSettings.ai`. Without a provider the route
   * answers 11190. `false` leaves it out. See docs/ai-chat.md.
   */
  ai?: false | AiOptions;
  /**
   * Push notifications: `/1/installations`, `POST /1/push` and their transports (Web Push, FCM);
   * per-application `featureSettings.push.clientPush`. Without a transport `/1/push` answers 11199.
   * `false` leaves it out. See docs/push.md.
   */
  push?: false | PushOptions;
  /**
   * The mini-program platform (login by openid, session keys, content checks, messages, codes) and
   * WeChat Pay, with per-application credentials in `featureSettings.wechat`; without them the routes
   * answer 11205. `false` leaves them out. See docs/wechat.md.
   */
  wechat?: false | WechatOptions;
  /**
   * The admin console (docs/console.md): `true` serves it at `/console`, `{ path }` elsewhere under the
   * mount. Off by default. Operators sign in with an application id and its master key.
   */
  console?: boolean | ConsoleOptions;
  /**
   * Metrics (docs/console.md, "Metrics"): request rates, errors and latency per route group, cloud
   * functions, SMS, realtime and table sizes, kept in a bounded in-process history for the console's
   * dashboard and shown in the Prometheus text format: `GET /1/metrics?format=prometheus` with an
   * application's master key, and `GET /metrics` with `Authorization: Bearer <token>` when a token
   * is given. On when the console is (`true` or options); `false` turns them off.
   */
  metrics?: boolean | MetricsOptions;
  /**
   * Extra features: definitions (`{ id, requires, settings, init }`, see docs/features.md), started in
   * `requires` order after the built-in ones they need. The older factory form
   * `(ctx, registry) => Feature` still works (deprecated).
   */
  features?: ReadonlyArray<FeatureDefinition | FeatureFactory>;
  /** Host write hooks per class (Parse-style); more with `service.hooks.beforeSave(...)`. See docs/features.md. */
  hooks?: WriteHooksConfig;
  /**
   * Write observers, called once per changed record after its write committed (system tables
   * included); more can be added with `service.onWrite`. See docs/architecture.md, "A create".
   */
  observers?: WriteObserver[];
}

/** A running service: a transport-neutral handler plus lifecycle. Mount it with `svcbase/node`, `svcbase/fetch` or `svcbase/fastify`. */
export interface Service {
  /** Handles one request. Never throws: failures become coded error responses. */
  handle(request: SvcRequest): Promise<SvcResponse>;
  /**
   * Serves the features' upgrade handlers (WebSocket): wire it to node's `server.on('upgrade', ...)`
   * of node:http, Express's `app.listen()`, Fastify's `app.server` or @hono/node-server's `serve()`.
   * Pass `{ prefix }` when the service is mounted under one. Unknown paths get a 404 and the socket
   * is destroyed. Never throws.
   *
   * @example
   * server.on('upgrade', (req, socket, head) => service.handleUpgrade(req, socket, head, { prefix: '/api' }));
   */
  handleUpgrade: UpgradeHandler;
  /**
   * The features' upgrade handlers over any transport: the host glue of a runtime without node's
   * upgrade event (svcbase/fetch's `toHonoUpgrade`) passes the request and how it completes a
   * handshake; a refusal before the handshake comes back as a response to send. Never rejects.
   */
  serveUpgrade: UpgradeServer;
  readonly applications: ReadonlyMap<string, Application>;
  readonly context: ServiceContext;
  readonly registry: ServiceRegistry;
  readonly routes: readonly RouteDef[];
  /**
   * Registers a write observer: called with `{ op, app, className, objectId, before?, after? }` once per
   * record created, updated or deleted through any feature, after commit (a rolled-back transaction
   * emits nothing). Its errors are logged, never fail the write. Returns the unsubscribe function.
   */
  onWrite(observer: WriteObserver): () => void;
  /** Registers host write hooks: `service.hooks.beforeSave('Post', (ctx) => { ... })`. */
  readonly hooks: WriteHookRegistry;
  /** Releases features, the kv store and the storage adapter. Idempotent. */
  close(): Promise<void>;
}

const BRAND = /^[A-Za-z][A-Za-z0-9]{0,31}$/;

/**
 * Creates a service: the composition root. Opens no port and installs no global state.
 *
 * @example
 * const service = createService({
 *   storage: sqliteStorage({ database: new Database('data/app.db') }),
 *   applications: [{ applicationId: 'app', restApiKey: 'rest', masterKey: 'master' }],
 *   brands: ['Svc', 'Bmob'],
 * });
 * http.createServer(toNodeListener(service)).listen(3000);
 */
export function createService(options: ServiceOptions): Service {
  const brands = options.brands ?? ['Svc'];
  for (const brand of brands) if (!BRAND.test(brand)) throw configError('service', `invalid header brand '${brand}'`);
  const publicUrl = options.publicUrl === undefined ? undefined : checkedPublicUrl(options.publicUrl, 'publicUrl');
  // Applications without a public URL of their own use the service's.
  const apps = createAppRegistry(publicUrl === undefined ? options.applications : options.applications.map((config) => (config.publicUrl === undefined ? { ...config, publicUrl } : config)));
  const kv = options.kv ?? memoryKvStore();
  const counters = options.counters ?? memoryCounterStore();
  const logger = options.logger ?? silentLogger;
  const observers = new WriteObservers(logger);
  for (const observer of options.observers ?? []) observers.add(observer);
  const hooks = new WriteHooks(logger);
  // after* hooks ride on the write events: the first one registered subscribes them as an observer.
  hooks.onFirstAfterHook(() => observers.add((event) => hooks.afterWrite(event)));
  hooks.addAll(options.hooks ?? {});
  const owners = new Map([...apps.byId.values()].map((app) => [app.namespace, app.applicationId]));
  const clock = options.clock ?? systemClock;
  const metricsOn = options.metrics === undefined ? Boolean(options.console) : options.metrics !== false;
  const metrics = metricsOn ? createServiceMetrics(options.metrics === true || options.metrics === undefined || options.metrics === false ? {} : options.metrics, clock) : undefined;
  const context: ServiceContext = {
    // Every feature writes through this one observed adapter: the write pipeline's choke point.
    storage: writePipeline(options.storage, observers, (namespace) => owners.get(namespace) ?? namespace, hooks),
    kv,
    counters,
    clock,
    random: options.random ?? cryptoRandom,
    logger,
    applications: apps.byId,
    onWrite: (observer) => observers.add(observer),
    ...(options.bus ? { bus: options.bus } : {}),
    metrics: metrics?.registry ?? noMetrics,
  };
  const apis = new Map<string, unknown>();
  const registry = registryView(apis);
  // Stand-ins for unconfigured features come last, so a host's own feature on the same paths wins.
  const standIns: FeatureDefinition[] = options.sms ? [] : [{ id: 'sms-unconfigured', init: () => unconfiguredSmsFeature() }];
  let legacyCount = 0;
  const hostFeatures = (options.features ?? []).map((entry) =>
    typeof entry === 'function' ? legacyFeature(entry, legacyCount++, registry) : entry,
  );
  const features = composeFeatures({
    definitions: [...builtInFeatures(options, registry), ...(metrics ? [metrics.definition] : []), ...hostFeatures, ...standIns],
    context,
    hooks,
    apis,
    slices: new Map(options.applications.map((config) => [config.applicationId, config.featureSettings])),
  }).map((started) => started.instance);
  const routes = features.flatMap((f) => f.routes);
  routes.push(openApiRoute(routes, brands[0] ?? 'Svc'));

  const handlerOptions = {
    routes,
    upgrades: features.flatMap((f) => f.upgrades ?? []),
    apps,
    brands,
    clock: context.clock,
    kv,
    logger: context.logger,
    bodyLimits: { maxBytes: options.bodyLimit ?? 1024 * 1024, maxDepth: options.maxBodyDepth ?? 32 },
    maxResponseBytes: responseLimit(options.maxResponseBytes),
    signatureSkewMs: options.signatureSkewMs ?? 10_000,
    corsOrigins: options.corsOrigins ?? '*',
    ...(publicUrl === undefined ? {} : { publicUrl }),
    sessions: () => registry.sessions,
    accessLog: options.accessLog === true,
    metrics: context.metrics!,
  };
  const handle = createRequestHandler(handlerOptions);
  const serveUpgrade = createUpgradeServer(handlerOptions);
  const handleUpgrade = nodeUpgradeHandler(serveUpgrade, handlerOptions.logger);

  let closing: Promise<void> | undefined;
  return {
    handle,
    handleUpgrade,
    serveUpgrade,
    applications: apps.byId,
    context,
    registry,
    routes,
    onWrite: (observer) => observers.add(observer),
    hooks,
    close() {
      closing ??= (async () => {
        for (const feature of [...features].reverse()) await feature.close?.();
        await kv.close?.();
        await counters.close?.();
        await options.storage.close();
      })();
      return closing;
    },
  };
}

/**
 * The built-in features, each its own definition (`captchaFeature`, `smsFeature`, ...), listed as the
 * options turn them on; `createService` orders them by their `requires` and `after`.
 */
function builtInFeatures(options: ServiceOptions, registry: ServiceRegistry): FeatureDefinition[] {
  const definitions: FeatureDefinition[] = [systemFeature()];
  if (options.captcha !== false) definitions.push(captchaFeature(options.captcha ?? {}));
  if (options.sms) definitions.push(smsFeature(options.sms));
  definitions.push(recordsFeature(options.classPermissions ? { classPermissions: options.classPermissions } : {}));
  // The users feature publishes its session resolver through the registry (the SESSIONS key).
  if (options.users !== false) definitions.push(usersFeature({ ...(options.users ?? {}), mail: options.mail ?? unconfiguredMail }, registry));
  if (options.files) definitions.push(filesFeature(options.files));
  if (options.functions) definitions.push(functionsFeature(options.functions));
  if (options.ai !== false) definitions.push(aiFeature(options.ai ?? {}));
  if (options.push !== false) definitions.push(pushFeature(options.push ?? {}));
  if (options.wechat !== false) definitions.push(wechatFeature(options.wechat ?? {}));
  if (options.console) definitions.push(consoleFeature(options.console === true ? {} : options.console, (options.brands ?? ['Svc'])[0]!));
  if (options.realtime !== false) definitions.push(realtimeFeature(options.realtime ?? {}));
  return definitions;
}

/** The default `maxResponseBytes`: well under V8's string length limit (about 512 M characters). */
const DEFAULT_MAX_RESPONSE_BYTES = 128 * 1024 * 1024;

/** `ServiceOptions.maxResponseBytes`, checked: a positive whole number of bytes. */
function responseLimit(value: number | undefined): number {
  if (value === undefined) return DEFAULT_MAX_RESPONSE_BYTES;
  if (!Number.isSafeInteger(value) || value <= 0) throw configError('service', `maxResponseBytes must be a positive whole number of bytes, got ${String(value)}`);
  return value;
}

/** Mail flows without a transport answer 11007 instead of silently dropping links. */
const unconfiguredMail: MailTransport = {
  name: 'unconfigured',
  async send() {
    throw svcError('featureDisabled', 'mail (no mail transport configured)');
  },
};
