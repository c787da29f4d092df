import type { Application } from '../app/application.js';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import type { Random } from '../core/random.js';
import type { Json } from '../core/wire-values.js';
import type { StoredRecord } from '../core/values.js';
import type { CounterStore } from '../counters/port.js';
import type { KvStore } from '../kv/port.js';
import type { StorageAdapter } from '../storage/port.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH' | 'OPTIONS' | 'HEAD';

/**
 * The transport-neutral request every mounting adapter produces. `path` is the raw (still
 * percent-encoded) path after the host's mount prefix, without the query string.
 */
export interface SvcRequest {
  readonly method: string;
  readonly path: string;
  /** Raw query string without the leading `?` (may be empty). */
  readonly search: string;
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string | undefined>>;
  /** The raw body, or null when there is none. */
  readonly body: Uint8Array | null;
  readonly remoteAddress?: string;
  /** `http://host:port` plus the mount prefix, for absolute links (captcha_url, email links). */
  readonly baseUrl?: string;
}

/** The transport-neutral response. `body` is already serialised. */
export interface SvcResponse {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array | string;
}

/** How a request authenticated. */
export interface AuthContext {
  readonly mode: 'rest' | 'signed' | 'master' | 'secret-path';
  /** Master key presented: full power (skips user-table protection). */
  readonly isMaster: boolean;
  /** The session token header, or null (the literal values `bmob`/`undefined` count as none). */
  readonly sessionToken: string | null;
}

/** The user a session token resolves to (filled in by the users feature). */
export interface SessionUser {
  readonly objectId: string;
  readonly record: StoredRecord;
  /** Hash of the presenting session token (lets password change keep the current session). */
  readonly sessionId: string;
}

/** Resolves session tokens; the users feature registers one. Unknown or expired tokens give null. */
export interface SessionResolver {
  resolve(app: Application, token: string): Promise<SessionUser | null>;
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
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly remoteAddress: string | undefined;
  readonly baseUrl: string;
  /** The signed-in user of the session token, resolved once on first call; null when anonymous. */
  user(): Promise<SessionUser | null>;
}

export interface RouteResult {
  /** Default 200. */
  status?: number;
  /** JSON-serialisable value, or raw bytes/text (then set content-type in headers). */
  body: Json | Uint8Array | string;
  headers?: Record<string, string>;
  /** Set for raw bodies: skip JSON serialisation. */
  raw?: boolean;
}

/**
 * How a route authenticates:
 * - `app`: application keys, signed headers or master key (every REST route);
 * - `master`: master key only;
 * - `secret-path`: the `:secretKey` path parameter names the app (plain-HTTP functions, captcha image);
 * - `none`: public (links mailed to users, timestamps).
 */
export type RouteAuth = 'app' | 'master' | 'secret-path' | 'none';

/** How the body is read: parsed JSON object, raw bytes, form fields, or ignored. */
export type RouteBody = 'json' | 'optional-json' | 'raw' | 'form' | 'none';

export interface RouteDef {
  readonly method: HttpMethod | '*';
  /** Pattern with `:name` segments, e.g. `/1/classes/:table/:objectId`. */
  readonly path: string;
  readonly auth: RouteAuth;
  readonly body: RouteBody;
  /** A JSON Schema for the body (compiled once with ajv; errors name the field). */
  readonly schema?: object;
  readonly handler: (ctx: RouteContext) => Promise<RouteResult> | RouteResult;
}

/** Everything a feature needs from the service; passed to every feature factory. */
export interface ServiceContext {
  readonly storage: StorageAdapter;
  readonly kv: KvStore;
  /** Rate-limit counters shared by every feature (SMS send limits, login throttling). */
  readonly counters: CounterStore;
  readonly clock: Clock;
  readonly random: Random;
  readonly logger: Logger;
  /** Applications by id. */
  readonly applications: ReadonlyMap<string, Application>;
}

/** A feature plugs routes (and optionally cleanup) into the service. */
export interface Feature {
  readonly name: string;
  readonly routes: readonly RouteDef[];
  close?(): Promise<void> | void;
}
