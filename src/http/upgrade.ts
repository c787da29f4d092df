import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { svcError } from '../core/errors.js';
import { authenticate } from './auth.js';
import { type TrustProxy, compileTrustProxy } from './client-address.js';
import { brandHeaderNames } from './credentials.js';
import { type FailedRequest, errorResponse } from './error-response.js';
import { type HandlerOptions, callerOf } from './handler.js';
import { flattenHeaders, nodeBaseUrl, nodeClientAddress } from './host/node-request.js';
import { nodeSocketAcceptor } from './host/ws-socket.js';
import { normalizePrefix, splitTarget } from './host/prefix.js';
import { createRouter } from './router.js';
import type { FeatureSocket } from '../features/sockets.js';
import type { RouteDef, SvcRequest, SvcResponse, UpgradeDef } from './types.js';

export interface UpgradeOptions {
  /** The mount prefix, e.g. `/api`: upgrade requests reach the server with the full path, even under Express. */
  prefix?: string;
  /** As for `toNodeListener`: which peers may name the client in `X-Forwarded-For`. */
  trustProxy?: TrustProxy;
}

/** Node's `server.on('upgrade', ...)` listener shape, plus the mount options. */
export type UpgradeHandler = (req: IncomingMessage, socket: Duplex, head: Buffer, options?: UpgradeOptions) => Promise<void>;

const STATUS_TEXT: Record<number, string> = { 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 429: 'Too Many Requests', 500: 'Internal Server Error' };

/**
 * Serves the features' upgrade handlers: matches the path (after the prefix), authenticates the
 * upgrade request's headers like any route, then lets the handler accept the WebSocket (`ws` here:
 * features only see a FeatureSocket). Unknown paths, refused credentials and errors before the
 * handshake get a plain HTTP error on the socket, which is then destroyed.
 */
export function createUpgradeHandler(options: HandlerOptions): UpgradeHandler {
  const byDef = new Map<RouteDef, UpgradeDef>();
  const routes = options.upgrades.map((upgrade): RouteDef => {
    const route: RouteDef = { method: 'GET', path: upgrade.path, auth: upgrade.auth, body: 'none', handler: () => ({ body: null }) };
    byDef.set(route, upgrade);
    return route;
  });
  const router = createRouter(routes);
  const acceptSocket = nodeSocketAcceptor();
  const authOptions = { apps: options.apps, headerNames: brandHeaderNames(options.brands), clock: options.clock, kv: options.kv, signatureSkewMs: options.signatureSkewMs };

  return async (req, socket, head, mount = {}) => {
    const url = req.url ?? '/';
    let failed: FailedRequest = { method: 'GET', path: url };
    let accepted: Promise<FeatureSocket | undefined> | undefined;
    try {
      const prefix = normalizePrefix(mount.prefix);
      const trust = compileTrustProxy(mount.trustProxy);
      const target = splitTarget(url, prefix);
      const request: SvcRequest = {
        method: 'GET',
        path: target?.path ?? url,
        search: target?.search ?? '',
        headers: flattenHeaders(req.headers),
        body: null,
        remoteAddress: nodeClientAddress(req, trust),
        baseUrl: nodeBaseUrl(req, prefix),
      };
      failed = request;
      const match = target && router.match('GET', target.path);
      if (!match) throw svcError('routeNotFound', 'GET', request.path);
      const upgrade = byDef.get(match.route)!;
      const authed = await authenticate(request, upgrade.auth, match.params, () => '', authOptions);
      const app = authed?.app;
      const auth = authed?.auth ?? { mode: 'rest' as const, isMaster: false, sessionToken: null };
      const caller = app ? callerOf(app, auth, request.remoteAddress, options.sessions) : undefined;
      await upgrade.handler({
        app,
        auth,
        params: match.params,
        query: new URLSearchParams(request.search),
        remoteAddress: request.remoteAddress,
        accept: (acceptOptions) => (accepted ??= acceptSocket(req, socket, head, acceptOptions)),
        onEnd: (listener) => void socket.once('close', listener),
        caller,
        user: () => (caller ? caller.user() : Promise.resolve(null)),
      });
    } catch (error) {
      if (!accepted) return refuse(socket, errorResponse(error, options.logger, failed));
      // Past the handshake the socket speaks WebSocket: close it as one.
      options.logger.error('upgrade: the handler failed after accepting', { path: failed.path, error: String(error) });
      (await accepted)?.close(1011, 'server error');
    }
  };
}

/** Answers a refused upgrade in plain HTTP/1.1 and closes the socket. */
function refuse(socket: Duplex, response: SvcResponse): void {
  if (socket.destroyed) return;
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const body = Buffer.from(response.body);
  const head = [`HTTP/1.1 ${response.status} ${STATUS_TEXT[response.status] ?? 'Error'}`];
  for (const [name, value] of Object.entries(response.headers)) head.push(`${name}: ${value}`);
  head.push(`content-length: ${body.length}`, 'connection: close', '', '');
  socket.end(Buffer.concat([Buffer.from(head.join('\r\n')), body]), () => socket.destroy());
}
