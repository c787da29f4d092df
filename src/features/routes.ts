import type { Application } from '../app/application.js';
import type { Caller, SessionUser } from '../app/caller.js';
import type { Json } from '../core/wire-values.js';
import type { AcceptOptions, FeatureSocket } from './sockets.js';

/**
 * What a feature declares to be served: routes and upgrades, and what their handlers get. The host
 * kit (src/http/) reads requests into these and writes results out; features never see a request.
 */

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH' | 'OPTIONS' | 'HEAD';

/** How a request authenticated. */
export interface AuthContext {
  readonly mode: 'rest' | 'signed' | 'master' | 'secret-path';
  /** Master key presented: full power (skips user-table protection). */
  readonly isMaster: boolean;
  /** The session token header, or null (the literal values `bmob`/`undefined` count as none). */
  readonly sessionToken: string | null;
}

export interface RouteContext {
  readonly app: Application;
  readonly auth: AuthContext;
  readonly method: string;
  /** Decoded path parameters (`:table` → `params.table`). */
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  /** The parsed JSON body for `body: 'json'` routes (an object), else undefined. */
  readonly body: { readonly [key: string]: Json } | undefined;
  readonly rawBody: Uint8Array | null;
  /**
   * `body: 'stream'` routes only: the body's chunks as they arrive. Passing the route's body limit
   * throws 413/11002 from the iteration (let it propagate). Undefined for other routes.
   */
  readonly bodyStream?: AsyncIterable<Uint8Array>;
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly remoteAddress: string | undefined;
  /**
   * The base of absolute links this request hands out (files' urls, captcha links, `Location`): the
   * application's `publicUrl`, else the service's, else the host's listen address (`SvcRequest.baseUrl`).
   * Never a request header.
   */
  readonly baseUrl: string;
  /** The signed-in user of the session token, resolved once on first call; null when anonymous (same as `caller.user()`). */
  user(): Promise<SessionUser | null>;
  /** `auth: 'upload'` routes only: the upload's credentials (see {@link UploadCredentials}). */
  readonly upload?: UploadCredentials;
  /**
   * Who asks, as the services take it: built once per request from the credentials. Throws for
   * routes with `auth: 'none'` (they have no application) and for an upload whose form fields carry
   * the credentials (`upload.caller(fields)` gives that one).
   */
  readonly caller: Caller;
}

export interface RouteResult {
  /** Default 200. */
  status?: number;
  /** JSON-serialisable value, or raw bytes/text (then set content-type in headers). */
  body: Json | Uint8Array | string;
  headers?: Record<string, string>;
  /** Set for raw bodies: skip JSON serialisation. */
  raw?: boolean;
  /** A raw body written as it is read (set `content-length` in headers when known); `body` is ignored. */
  stream?: AsyncIterable<Uint8Array>;
}

/**
 * How a route authenticates. Every credential form is checked here, in http/ (auth.ts,
 * upload-auth.ts), never by a route: a route declares what it accepts and gets the Caller.
 * - `app`: application keys, signed headers or master key (every REST route);
 * - `master`: master key only;
 * - `secret-path`: the `:secretKey` path parameter names the app, a session token header may come
 *   with it (AI chat); an unknown key answers 401;
 * - `function-path`: the plain-HTTP function form: the `:secretKey` path parameter is the only
 *   credential (no header is read); an unknown key answers 404/11001 as an unknown route does;
 * - `captcha-link`: the `secretKey` query parameter (or `applicationId` for an application without a
 *   secret key) names the app; an unknown one answers 400/11010 as an unknown captcha token does;
 * - `upload`: what `app` accepts plus the upload signature variants (sdk-wire §2.6, D71), from the
 *   headers or, for a multipart body, from its form fields (`RouteContext.upload`); `body: 'stream'` only;
 * - `bearer`: `Authorization: Bearer <RouteDef.bearerToken>` (an operator's token, not an
 *   application's: the route has no application, like `none`); anything else answers 401;
 * - `none`: public (links mailed to users, timestamps).
 */
export type RouteAuth = 'app' | 'master' | 'secret-path' | 'function-path' | 'captcha-link' | 'upload' | 'bearer' | 'none';

/**
 * `auth: 'upload'` routes: the request's credentials as the upload's head carried them. A multipart
 * upload may carry them as form fields before its first file part (quick apps): the route hands the
 * fields it has read to `caller`.
 */
export interface UploadCredentials {
  /** The caller when the request's headers carried the credentials; undefined when a multipart form must. */
  readonly headCaller: Caller | undefined;
  /**
   * The caller: the head's, else the one the form's fields (merged over the headers') authenticate,
   * checked once. Throws as a failed authentication does (401).
   */
  caller(fields: ReadonlyMap<string, string>): Promise<Caller>;
}

/**
 * How the body is read: parsed JSON object, raw bytes, form fields, ignored (still read, within the
 * limit, for signatures), or `stream`: handed to the handler unread as `ctx.bodyStream` (uploads).
 * A signed request to a `stream` route is verified over an empty body: its signature covers the
 * request head, not the streamed bytes.
 */
export type RouteBody = 'json' | 'optional-json' | 'raw' | 'form' | 'none' | 'stream';

export interface RouteDef {
  readonly method: HttpMethod | '*';
  /** Pattern with `:name` segments, e.g. `/1/classes/:table/:objectId`. */
  readonly path: string;
  readonly auth: RouteAuth;
  readonly body: RouteBody;
  /**
   * `auth: 'upload'` routes: the largest raw body buffered to check a signature over its bytes (the
   * Node SDK's strings and Buffers). Unset: only signatures that need no body bytes are accepted.
   */
  readonly signedBodyLimit?: number;
  /**
   * Texts a signed request's signature may cover in place of `path + timestamp`, for a client that
   * signs something else: the SDK's `wxvpCancelCurrencyPay` has no route, and in JavaScript
   * `undefined + timestamp` is `NaN`, so it signs `NaN` + security code + nonce + body + version.
   * The timestamp header is still checked for skew; such a signature is accepted once a day.
   */
  readonly signedHeads?: readonly string[];
  /** `auth: 'bearer'` routes: the token the `Authorization: Bearer` header must carry (compared in constant time). */
  readonly bearerToken?: string;
  /** A JSON Schema for the body (compiled once with ajv; errors name the field). */
  readonly schema?: object;
  /** This route's body limit in bytes, larger or smaller than the service's `bodyLimit` (the default). */
  readonly bodyLimit?: number;
  /** A line about the route for `/1/openapi.json`. */
  readonly summary?: string;
  /** JSON Schemas of the route's success bodies by HTTP status, for `/1/openapi.json` (its tests check real replies against them). */
  readonly responses?: Readonly<Record<number, object>>;
  readonly handler: (ctx: RouteContext) => Promise<RouteResult> | RouteResult;
}

/** What an upgrade handler gets: the authenticated request, and the handshake to accept. */
export interface UpgradeContext {
  /** The application; undefined for `auth: 'none'`. */
  readonly app: Application | undefined;
  readonly auth: AuthContext;
  /** Decoded path parameters. */
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  readonly remoteAddress: string | undefined;
  /**
   * Completes the WebSocket handshake and hands over the socket; undefined when the client left
   * first (or its handshake was malformed: the host answered it). Call it at most once.
   */
  accept(options: AcceptOptions): Promise<FeatureSocket | undefined>;
  /** Called once when the underlying connection ends, accepted or not (e.g. to release a slot). */
  onEnd(listener: () => void): void;
  /** The signed-in user of the session token; null when anonymous. */
  user(): Promise<SessionUser | null>;
  /** Who asks (undefined for `auth: 'none'`): the same Caller routes get. */
  readonly caller: Caller | undefined;
}

/**
 * A WebSocket upgrade on a path. Credentials are read from the upgrade request's
 * headers exactly as for routes. The handler accepts it (`ctx.accept`); throwing (a coded error) before it
 * accepts answers the client in plain HTTP and closes the connection.
 */
export interface UpgradeDef {
  /** Pattern with `:name` segments, relative to the mount prefix, e.g. `/1/realtime/:channel`. */
  readonly path: string;
  readonly auth: Exclude<RouteAuth, 'upload'>;
  readonly handler: (ctx: UpgradeContext) => Promise<void> | void;
}
