import { randomUUID } from 'node:crypto';
import type { Application } from '../app/application.js';
import { type Caller, type SessionUser, sessionCaller } from '../app/caller.js';
import type { AppRegistry } from '../app/registry.js';
import type { Clock } from '../core/clock.js';
import { svcError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import { type MetricsPort, routeGroup } from '../core/metrics.js';
import type { KvStore } from '../kv/port.js';
import { type Authenticated, authenticate } from './auth.js';
import { type UploadAuthentication, authenticateUpload } from './upload-auth.js';
import { type BodyLimits, type JsonObject, bodyText, parseFormBody, parseJsonBody } from './body.js';
import { type BodySource, declaredLength, limitedChunks, readLimited } from './body-stream.js';
import { errorResponse } from './error-response.js';
import { brandHeaderNames } from './credentials.js';
import { corsHeaders, preflightResponse } from './cors.js';
import { createRouter } from './router.js';
import type { AuthContext, RouteContext, RouteDef, RouteResult, SessionResolver, SvcRequest, SvcResponse, UpgradeDef, UploadCredentials } from './types.js';
import { createBodyValidator } from './validate.js';
import { copyOf, merged } from '../core/copy.js';

export interface HandlerOptions {
  readonly routes: readonly RouteDef[];
  readonly upgrades: readonly UpgradeDef[];
  readonly apps: AppRegistry;
  /** Accepted header brands, e.g. `['Svc', 'Bmob']`. */
  readonly brands: readonly string[];
  readonly clock: Clock;
  readonly kv: KvStore;
  readonly logger: Logger;
  readonly bodyLimits: BodyLimits;
  /**
   * Largest JSON reply body in UTF-8 bytes (`ServiceOptions.maxResponseBytes`); a larger one, or one
   * too large for a JavaScript string at all, answers 11092 instead.
   */
  readonly maxResponseBytes: number;
  readonly signatureSkewMs: number;
  readonly corsOrigins: '*' | readonly string[];
  /** The service's public base URL (`ServiceOptions.publicUrl`), for routes without an application. */
  readonly publicUrl?: string;
  /** Resolves session tokens once the users feature is present. */
  readonly sessions: () => SessionResolver | undefined;
  /**
   * One `info` line per request through the logger: `GET /1/classes/Post 200 3ms {"requestId"}`, the
   * query string left out. With it every response carries `X-Request-Id` (the client's when short and
   * plain, else a fresh UUID); without it only a client's own id is echoed.
   */
  readonly accessLog?: boolean;
  /** Where each answered request is counted (the console's dashboard, `/metrics`); none by default. */
  readonly metrics?: MetricsPort;
}

/** What a request is logged and counted as, filled in while it is handled. */
interface Logged {
  path: string;
  app: string;
  group: string;
}

/** An incoming X-Request-Id is kept only when it is short and plain; anything else gets a fresh id. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export type RequestHandler = (request: SvcRequest) => Promise<SvcResponse>;

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * The transport core: one plain request in, one plain response out. Mounting adapters (node:http,
 * fetch, Fastify) only translate to and from these shapes.
 */
export function createRequestHandler(options: HandlerOptions): RequestHandler {
  const router = createRouter(options.routes);
  const headerNames = brandHeaderNames(options.brands);
  const validatorFor = createBodyValidator();
  const validators = new Map<RouteDef, (body: unknown) => void>();
  for (const route of options.routes) if (route.schema) validators.set(route, validatorFor(route.schema));
  const authOptions = {
    apps: options.apps,
    headerNames,
    clock: options.clock,
    kv: options.kv,
    signatureSkewMs: options.signatureSkewMs,
  };

  const accessLog = options.accessLog === true;
  const metrics = options.metrics;
  const measured = metrics?.enabled === true;
  const groups = new Map<RouteDef, string>();
  if (measured) for (const route of options.routes) groups.set(route, routeGroup(route.path));
  /**
   * `logged.path`: the path as the access log writes it (a secret key in it masked); `app` and
   * `group`: what the metrics count the request under.
   */
  const handle = async (request: SvcRequest, requestId: string | undefined, logged: Logged): Promise<SvcResponse> => {
    const method = request.method.toUpperCase();
    const cors = corsHeaders(request.headers.origin, options.corsOrigins);
    if (method === 'OPTIONS') return preflightResponse(cors, headerNames.allHeaders);
    try {
      const match = router.match(method, request.path);
      if (!match) throw svcError('routeNotFound', method, request.path);
      const { route, params } = match;
      if (measured) logged.group = groups.get(route) ?? 'other';
      // The plain-HTTP function paths carry an application's secret key: never into a log line (a
      // wrong guess neither). Short first segments (`/1/...` routes that fell through) stay readable.
      const secret = params['secretKey'];
      if (secret !== undefined && secret.length >= 8) logged.path = request.path.replace(`/${secret}`, '/<secretKey>');
      const limits = route.bodyLimit === undefined ? options.bodyLimits : merged(options.bodyLimits, { maxBytes: route.bodyLimit });
      const raw = await rawBody(route, request, limits.maxBytes);
      let text: string | undefined;
      const rawText = () => (text ??= bodyText(raw));
      let stream = route.body === 'stream' ? bodyStream(request, limits.maxBytes) : undefined;
      // Uploads: their signature variants may need the body, and their form fields may carry the credentials.
      const upload = route.auth === 'upload' ? await authenticateUpload(request, signedRoute(route, params), stream ?? limitedChunks([], 0), route.signedBodyLimit, authOptions) : undefined;
      if (upload) stream = upload.body;
      const authed = upload ? upload.authed : await authenticate(request, route.auth, params, rawText, authOptions, route.path, route.signedHeads, route.bearerToken);
      if (measured && authed) logged.app = authed.app.applicationId;
      const body = readBody(route, raw, request.headers['content-type'], limits);
      if (body !== undefined) validators.get(route)?.(body);
      const ctx = routeContext(request, raw, stream, method, params, body, authed, options, upload);
      const result = await route.handler(ctx);
      return toResponse(result, cors, options.maxResponseBytes);
    } catch (error) {
      return errorResponse(error, options.logger, { method: request.method, path: logged.path, ...(requestId === undefined ? {} : { requestId }) }, cors);
    }
  };
  return async (request) => {
    const started = accessLog || measured ? performance.now() : 0;
    const incoming = request.headers['x-request-id'];
    const requestId = typeof incoming === 'string' && SANE_REQUEST_ID.test(incoming) ? incoming : accessLog ? randomUUID() : undefined;
    const logged: Logged = { path: request.path, app: '', group: 'unmatched' };
    const response = await handle(request, requestId, logged);
    if (measured) metrics!.request(logged.app, logged.group, response.status, performance.now() - started, request.method.toUpperCase(), logged.path);
    if (requestId === undefined) return response;
    response.headers['x-request-id'] = requestId;
    if (accessLog) options.logger.info(`${request.method.toUpperCase()} ${logged.path} ${response.status} ${Math.round(performance.now() - started)}ms`, { requestId });
    return response;
  };
}

/** The whole body within the route's limit; a stream route's body stays unread (null here). */
async function rawBody(route: RouteDef, request: SvcRequest, limit: number): Promise<Uint8Array | null> {
  const declared = declaredLength(request.headers);
  if (declared !== undefined && declared > limit) throw svcError('bodyTooLarge', limit);
  if (request.body) {
    if (request.body.length > limit) throw svcError('bodyTooLarge', limit);
    return route.body === 'stream' ? null : request.body;
  }
  if (route.body === 'stream' || !request.bodyStream) return null;
  return readLimited(request.bodyStream, limit);
}

/** A route's path with its parameters filled in, decoded: what the SDKs sign for an upload (`/2/files/<name>`). */
function signedRoute(route: RouteDef, params: Readonly<Record<string, string>>): string {
  return route.path.replace(/:([A-Za-z0-9_]+)/g, (_match, name: string) => params[name] ?? '');
}

function bodyStream(request: SvcRequest, limit: number): AsyncIterable<Uint8Array> {
  const source: BodySource = request.body ? [request.body] : (request.bodyStream ?? []);
  return limitedChunks(source, limit);
}

function readBody(route: RouteDef, raw: Uint8Array | null, contentType: string | undefined, limits: BodyLimits): JsonObject | undefined {
  switch (route.body) {
    case 'json':
      return parseJsonBody(raw, contentType, limits);
    case 'optional-json':
      return raw && raw.length > 0 ? parseJsonBody(raw, contentType, limits) : undefined;
    case 'form':
      return parseFormBody(raw, limits);
    default:
      return undefined;
  }
}

/**
 * One request's context. A class, not an object literal with getters: each evaluation of a literal
 * with accessors makes its own accessor pair and so its own hidden class, which left every handler
 * reading it megamorphic (measured: host-defined functions 0.40x of a host route before, 0.90x after
 * the same change to the function runner's objects).
 */
class RequestContext implements RouteContext {
  readonly auth: AuthContext;
  readonly rawBody: Uint8Array | null;
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly remoteAddress: string | undefined;
  readonly baseUrl: string;
  readonly upload: UploadCredentials | undefined;
  readonly #request: SvcRequest;
  readonly #app: Application | undefined;
  readonly #caller: Caller | undefined;
  #query: URLSearchParams | undefined;

  constructor(
    request: SvcRequest,
    raw: Uint8Array | null,
    readonly bodyStream: AsyncIterable<Uint8Array> | undefined,
    readonly method: string,
    readonly params: Record<string, string>,
    readonly body: JsonObject | undefined,
    authed: Authenticated | null,
    options: HandlerOptions,
    upload: UploadAuthentication | undefined,
  ) {
    this.#request = request;
    this.#app = authed?.app;
    this.auth = authed?.auth ?? { mode: 'rest' as const, isMaster: false, sessionToken: null };
    this.#caller = this.#app ? callerOf(this.#app, this.auth, request.remoteAddress, options.sessions) : undefined;
    this.rawBody = raw;
    this.headers = request.headers;
    this.remoteAddress = request.remoteAddress;
    // Configured first, then the address the host listens on: never a request header (Host, X-Forwarded-Host).
    this.baseUrl = this.#app?.publicUrl ?? options.publicUrl ?? request.baseUrl ?? '';
    this.upload = upload ? uploadCredentials(upload, this.#caller, request.remoteAddress, options) : undefined;
  }

  get app(): Application {
    if (!this.#app) throw new Error('[svcbase] [http] route with auth "none" has no application');
    return this.#app;
  }

  get query(): URLSearchParams {
    return (this.#query ??= new URLSearchParams(this.#request.search));
  }

  get caller(): Caller {
    if (!this.#caller) throw new Error('[svcbase] [http] route with auth "none" has no caller');
    return this.#caller;
  }

  user(): Promise<SessionUser | null> {
    return this.#caller ? this.#caller.user() : Promise.resolve(null);
  }
}

function routeContext(
  request: SvcRequest,
  raw: Uint8Array | null,
  stream: AsyncIterable<Uint8Array> | undefined,
  method: string,
  params: Record<string, string>,
  body: JsonObject | undefined,
  authed: Authenticated | null,
  options: HandlerOptions,
  upload?: UploadAuthentication,
): RouteContext {
  return new RequestContext(request, raw, stream, method, params, body, authed, options, upload);
}

/** An upload's credentials for its route: the head's caller, or the one its form fields name. */
function uploadCredentials(upload: UploadAuthentication, headCaller: Caller | undefined, address: string | undefined, options: HandlerOptions): UploadCredentials {
  const fromFields = upload.fromFields;
  let formCaller: Promise<Caller> | undefined;
  return {
    headCaller,
    caller(fields) {
      if (headCaller) return Promise.resolve(headCaller);
      if (!fromFields) throw new Error('[svcbase] [http] an upload without a caller and without form credentials');
      return (formCaller ??= fromFields(fields).then((authed) => callerOf(authed.app, authed.auth, address, options.sessions)));
    },
  };
}

/** The request's Caller: its application, credential kind, master flag, session token and client address. */
export function callerOf(app: Application, auth: AuthContext, address: string | undefined, sessions: () => SessionResolver | undefined): Caller {
  return sessionCaller(app, { credential: auth.mode, isMaster: auth.isMaster, sessionToken: auth.sessionToken, address }, sessions);
}

function toResponse(result: RouteResult, cors: Record<string, string>, maxBytes: number): SvcResponse {
  const headers: Record<string, string> = result.headers ? merged(cors, result.headers) : copyOf(cors);
  const status = result.status ?? 200;
  if (result.stream) return { status, headers, body: '', stream: result.stream };
  if (result.raw || result.body instanceof Uint8Array) {
    return { status, headers, body: result.body as Uint8Array | string };
  }
  headers['content-type'] ??= JSON_TYPE;
  return { status, headers, body: jsonBody(result.body, maxBytes) };
}

/**
 * A route's JSON reply, refused with 11092 past `maxBytes` of UTF-8, and where V8 cannot make the
 * string at all (its length limit, about 512 M characters: a RangeError, formerly a 500). The check
 * reads the length only: a character is 1 to 3 UTF-8 bytes, so the bytes are counted only when the
 * length alone cannot decide.
 */
function jsonBody(value: unknown, maxBytes: number): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    if (error instanceof RangeError && /string length/i.test(error.message)) throw svcError('responseTooLarge', maxBytes);
    throw error;
  }
  if (text !== undefined && text.length * 3 > maxBytes && (text.length > maxBytes || Buffer.byteLength(text) > maxBytes)) {
    throw svcError('responseTooLarge', maxBytes);
  }
  return text as string;
}
