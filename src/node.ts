/**
 * Mount a service in node:http, or as Express/Connect middleware.
 *
 * @example
 * http.createServer(toNodeListener(service)).listen(3000);
 * http.createServer(toNodeListener(service, { trustProxy: ['127.0.0.1'] })); // behind a local nginx
 * expressApp.use('/api', toNodeListener(service)); // before any body parser: signatures need the raw body
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { svcError } from './core/errors.js';
import type { Service } from './service.js';
import { declaredLength, limitedChunks } from './http/body-stream.js';
import { type TrustProxy, compileTrustProxy } from './http/client-address.js';
import { codedResponse } from './http/error-response.js';
import { SMALL_BODY_BYTES, flattenHeaders, nodeBaseUrl, nodeBodyStream, nodeClientAddress, readSmallBody, sendNodeResponse } from './http/host/node-request.js';
import { normalizePrefix, splitTarget } from './http/host/prefix.js';
import { deprecatedBodyLimit } from './http/host/deprecated-body-limit.js';

export interface NodeListenerOptions {
  /** Path prefix the service lives under in a plain node:http server, e.g. `/api`. Not needed under Express `app.use(prefix, ...)`. */
  prefix?: string;
  /**
   * @deprecated Set `bodyLimit` on `createService` (the one body limit, also the default of per-route
   * limits). Still honoured as a ceiling on every route, so it never loosens what it used to enforce.
   */
  bodyLimit?: number;
  /**
   * Behind a reverse proxy: which peers are your proxies (`true`, a hop count, or a list of addresses
   * and CIDR ranges). From those peers only, `X-Forwarded-For` names the client (the address that
   * per-address limits count). Absolute links never follow forwarded headers: set `publicUrl` on
   * `createService`.
   * Default `false`: the client is the socket peer and forwarded headers are ignored.
   */
  trustProxy?: TrustProxy;
}

type Next = (error?: unknown) => void;

export type { TrustProxy };
export type { UpgradeOptions } from './http/upgrade.js';
export { SERVER_LIMITS, type InFlight, type ServerLimitOptions, type ServerLimits, applyServerLimits, closeGracefully, closeOnSignals, trackRequests } from './http/host/node-server.js';

export type NodeListener = (req: IncomingMessage, res: ServerResponse, next?: Next) => void;

export function toNodeListener(service: Service, options: NodeListenerOptions = {}): NodeListener {
  const prefix = normalizePrefix(options.prefix);
  const trust = compileTrustProxy(options.trustProxy);
  const ceiling = deprecatedBodyLimit(service, 'toNodeListener', options.bodyLimit);
  return (req, res, next) => {
    const target = splitTarget(req.url ?? '/', prefix);
    if (!target) {
      if (next) return next();
      return sendNodeResponse(req, res, codedResponse(svcError('routeNotFound', req.method ?? 'GET', req.url ?? '/')));
    }
    const headers = flattenHeaders(req.headers);
    const stream = nodeBodyStream(req);
    const declared = declaredLength(headers);
    const dispatch = (body: Uint8Array | null) =>
      service
        .handle({
          method: req.method ?? 'GET',
          path: target.path,
          search: target.search,
          headers,
          body,
          bodyStream: body || !stream ? undefined : ceiling !== undefined ? limitedChunks(stream, ceiling, declared) : stream,
          remoteAddress: nodeClientAddress(req, trust),
          baseUrl: nodeBaseUrl(req, prefix),
        })
        .then(
          (response) => sendNodeResponse(req, res, response),
          (error: unknown) => (next ? next(error) : res.destroy(error as Error)),
        );
    // A small declared body is read whole here; larger and chunked ones reach the service as a stream.
    if (stream && declared !== undefined && declared <= SMALL_BODY_BYTES && (ceiling === undefined || declared <= ceiling)) {
      readSmallBody(req).then(dispatch, (error: unknown) => res.destroy(error as Error));
    } else void dispatch(null);
  };
}
