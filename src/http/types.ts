export type { Caller, SessionResolver, SessionUser } from '../app/caller.js';
// The feature contract lives in features/; http/ re-exports it for its own modules and older imports.
export type { Feature, ServiceContext } from '../features/contract.js';
export type {
  AuthContext,
  HttpMethod,
  RouteAuth,
  RouteBody,
  RouteContext,
  RouteDef,
  RouteResult,
  UpgradeContext,
  UpgradeDef,
  UploadCredentials,
} from '../features/routes.js';

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
  /** The raw body, or null when there is none (or when it is still to be read from `bodyStream`). */
  readonly body: Uint8Array | null;
  /**
   * The body not read yet, as the host delivers it (host glue passes this instead of `body`). The
   * service reads it once the route is known, within that route's body limit, or hands it to a
   * `body: 'stream'` route as it flows. Ignored when `body` is set.
   */
  readonly bodyStream?: AsyncIterable<Uint8Array>;
  readonly remoteAddress?: string;
  /**
   * The address the host listens on plus the mount prefix (`http://10.0.0.5:3000/api`), the default
   * base of absolute links when no `publicUrl` is configured. Hosts take it from the socket, never
   * from a request header (Host, X-Forwarded-Host); a fetch runtime, which has no socket, passes the
   * prefix alone (links relative to the origin).
   */
  readonly baseUrl?: string;
}

/** The transport-neutral response. `body` is already serialised. */
export interface SvcResponse {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array | string;
  /**
   * A body too large to hold in memory (a served file past 1 MiB), written chunk by chunk; `body` is
   * then empty. Every host of svcbase (node, fetch, fastify) writes it; a custom host must too.
   */
  stream?: AsyncIterable<Uint8Array>;
}
