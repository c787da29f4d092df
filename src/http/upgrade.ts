import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { svcError } from '../core/errors.js';
import type { AcceptOptions, FeatureSocket } from '../features/sockets.js';
import { authenticate } from './auth.js';
import { type TrustProxy, compileTrustProxy } from './client-address.js';
import { brandHeaderNames } from './credentials.js';
import { errorResponse } from './error-response.js';
import { type HandlerOptions, callerOf } from './handler.js';
import { flattenHeaders, nodeBaseUrl, nodeClientAddress } from './host/node-request.js';
import { normalizePrefix, splitTarget } from './host/prefix.js';
import { nodeSocketAcceptor } from './host/ws-socket.js';
import { createRouter } from './router.js';
import type { RouteDef, SvcRequest, SvcResponse, UpgradeDef } from './types.js';

export interface UpgradeOptions {
  /** The mount prefix, e.g. `/api`: upgrade requests reach the server with the full path, even under Express. */
  prefix?: string;
  /** As for `toNodeListener`: which peers may name the client in `X-Forwarded-For`. */
  trustProxy?: TrustProxy;
}

/** Node's `server.on('upgrade', ...)` listener shape, plus the mount options. */
export type UpgradeHandler = (req: IncomingMessage, socket: Duplex, head: Buffer, options?: UpgradeOptions) => Promise<void>;

/** How a host completes a handshake the service decided to accept: its half of an upgrade. */
export interface UpgradeTransport {
  /** Completes the handshake; undefined when the client left first. Called at most once. */
  accept(options: AcceptOptions): Promise<FeatureSocket | undefined>;
  /** Called once when the connection ends, accepted or not. */
  onEnd(listener: () => void): void;
}

/**
 * Serves one upgrade request (its path already without the mount prefix) over any transport:
 * matches the path, authenticates the request's headers like any route, and runs the feature's
 * handler, which accepts through `transport`. Resolves with the coded refusal when the upgrade was
 * refused before its handshake (unknown path 404/11001, credentials, a feature's own check), and
 * undefined once the handler is done. Never rejects.
 */
export type UpgradeServer = (request: SvcRequest, transport: UpgradeTransport) => Promise<SvcResponse | undefined>;

export function createUpgradeServer(options: HandlerOptions): UpgradeServer {
  const byDef = new Map<RouteDef, UpgradeDef>();
  const routes = options.upgrades.map((upgrade): RouteDef => {
    const route: RouteDef = { method: 'GET', path: upgrade.path, auth: upgrade.auth, body: 'none', handler: () => ({ body: null }) };
    byDef.set(route, upgrade);
    return route;
  });
  const router = createRouter(routes);
  const authOptions = { apps: options.apps, headerNames: brandHeaderNames(options.brands), clock: options.clock, kv: options.kv, signatureSkewMs: options.signatureSkewMs };

  return async (request, transport) => {
    let accepted: Promise<FeatureSocket | undefined> | undefined;
    try {
      const match = router.match('GET', request.path);
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
        accept: (acceptOptions) => (accepted ??= transport.accept(acceptOptions)),
        onEnd: (listener) => transport.onEnd(listener),
        caller,
        user: () => (caller ? caller.user() : Promise.resolve(null)),
      });
      return undefined;
    } catch (error) {
      if (!accepted) return errorResponse(error, options.logger, request);
      // Past the handshake the connection speaks WebSocket: close it as one.
      options.logger.error('upgrade: the handler failed after accepting', { path: request.path, error: String(error) });
      (await accepted)?.close(1011, 'server error');
      return undefined;
    }
  };
}

const STATUS_TEXT: Record<number, string> = { 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 429: 'Too Many Requests', 500: 'Internal Server Error' };

/**
 * Node's upgrade listener over the transport-neutral server: `ws` completes the handshakes (features
 * only see a FeatureSocket); a refusal is answered in plain HTTP on the socket, which is then destroyed.
 */
export function nodeUpgradeHandler(serve: UpgradeServer, logger: HandlerOptions['logger']): UpgradeHandler {
  const acceptSocket = nodeSocketAcceptor();
  return async (req, socket, head, mount = {}) => {
    const url = req.url ?? '/';
    let request: SvcRequest = { method: 'GET', path: url, search: '', headers: {}, body: null };
    try {
      const prefix = normalizePrefix(mount.prefix);
      const target = splitTarget(url, prefix);
      request = {
        method: 'GET',
        path: target?.path ?? url,
        search: target?.search ?? '',
        headers: flattenHeaders(req.headers),
        body: null,
        remoteAddress: nodeClientAddress(req, compileTrustProxy(mount.trustProxy)),
        baseUrl: nodeBaseUrl(req, prefix),
      };
      if (!target) throw svcError('routeNotFound', 'GET', url);
      const refused = await serve(request, {
        accept: (options) => acceptSocket(req, socket, head, options),
        onEnd: (listener) => void socket.once('close', listener),
      });
      if (refused) refuse(socket, refused);
    } catch (error) {
      refuse(socket, errorResponse(error, logger, request));
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
