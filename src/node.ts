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
import { type TrustProxy, clientAddress, compileTrustProxy } from './http/client-address.js';
import type { SvcRequest, SvcResponse } from './http/types.js';

export interface NodeListenerOptions {
  /** Path prefix the service lives under in a plain node:http server, e.g. `/api`. Not needed under Express `app.use(prefix, ...)`. */
  prefix?: string;
  /** Largest body read from the socket, in bytes (default 1 MiB); reading stops there and the request gets 413. */
  bodyLimit?: number;
  /**
   * Behind a reverse proxy: which peers are your proxies (`true`, a hop count, or a list of addresses
   * and CIDR ranges). From those peers only, `X-Forwarded-For` names the client (the address that
   * per-address limits count) and `X-Forwarded-Proto`/`X-Forwarded-Host` shape absolute links.
   * Default `false`: the client is the socket peer and forwarded headers are ignored.
   */
  trustProxy?: TrustProxy;
}

type Next = (error?: unknown) => void;

export type { TrustProxy };

export type NodeListener = (req: IncomingMessage, res: ServerResponse, next?: Next) => void;

export function toNodeListener(service: Service, options: NodeListenerOptions = {}): NodeListener {
  const prefix = normalizePrefix(options.prefix);
  const bodyLimit = options.bodyLimit ?? 1024 * 1024;
  const trust = compileTrustProxy(options.trustProxy);
  return (req, res, next) => {
    const url = req.url ?? '/';
    const queryAt = url.indexOf('?');
    let path = queryAt === -1 ? url : url.slice(0, queryAt);
    if (prefix) {
      if (path !== prefix && !path.startsWith(prefix + '/')) {
        if (next) return next();
        return send(res, notFound(req.method ?? 'GET', path));
      }
      path = path.slice(prefix.length) || '/';
    }
    const search = queryAt === -1 ? '' : url.slice(queryAt + 1);
    const dispatch = (body: Uint8Array | null) => {
      const peer = req.socket.remoteAddress;
      const request: SvcRequest = {
        method: req.method ?? 'GET',
        path,
        search,
        headers: flattenHeaders(req),
        body,
        remoteAddress: clientAddress(peer, joinedValue(req.headers['x-forwarded-for']), trust),
        baseUrl: baseUrl(req, prefix, peer !== undefined && trust(peer, 0)),
      };
      return service.handle(request).then((response) => send(res, response));
    };
    const fail = (error: unknown) => (next ? next(error) : res.destroy(error as Error));
    // Most requests (GET, DELETE) carry no body: skip the read entirely.
    if (!hasBody(req)) {
      dispatch(null).catch(fail);
      return;
    }
    readBody(req, bodyLimit).then((body) => (body === 'too-large' ? send(res, tooLarge(bodyLimit), true) : dispatch(body)), fail);
  };
}

function normalizePrefix(prefix: string | undefined): string {
  if (!prefix || prefix === '/') return '';
  return '/' + prefix.replace(/^\/+|\/+$/g, '');
}

/** Node already lower-cases and joins repeated request headers; only `set-cookie` stays an array. */
function flattenHeaders(req: IncomingMessage): Record<string, string | undefined> {
  const headers = req.headers;
  if (headers['set-cookie'] === undefined) return headers as Record<string, string | undefined>;
  const out: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(headers)) out[name] = Array.isArray(value) ? value.join(', ') : value;
  return out;
}

function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  if (length !== undefined) return length !== '0';
  return req.headers['transfer-encoding'] !== undefined;
}

function baseUrl(req: IncomingMessage, prefix: string, trustProxy: boolean): string {
  const forwardedProto = trustProxy ? firstHeader(req.headers['x-forwarded-proto']) : undefined;
  const forwardedHost = trustProxy ? firstHeader(req.headers['x-forwarded-host']) : undefined;
  const proto = forwardedProto ?? ((req.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http');
  const host = forwardedHost ?? req.headers.host ?? 'localhost';
  // Express strips its mount path from req.url and keeps it in req.baseUrl.
  const mount = (req as IncomingMessage & { baseUrl?: string }).baseUrl ?? '';
  return `${proto}://${host}${mount}${prefix}`;
}

function joinedValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  return v?.split(',')[0]?.trim() || undefined;
}

function readBody(req: IncomingMessage, limit: number): Promise<Uint8Array | null | 'too-large'> {
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (declared > limit) {
    req.resume();
    return Promise.resolve('too-large');
  }
  if (declared === 0 || req.readableEnded) return Promise.resolve(null);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (chunk: Buffer) => {
      if (over) return;
      size += chunk.length;
      if (size > limit) {
        over = true;
        chunks.length = 0;
        resolve('too-large');
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (!over) resolve(size === 0 ? null : Buffer.concat(chunks, size));
    });
    req.on('error', reject);
  });
}

function send(res: ServerResponse, response: SvcResponse, closeAfter = false): void {
  if (closeAfter) response.headers.connection = 'close';
  res.writeHead(response.status, response.headers);
  res.end(response.body);
}

function notFound(method: string, path: string): SvcResponse {
  const error = svcError('routeNotFound', method, path);
  return { status: error.status, headers: { 'content-type': 'application/json; charset=utf-8' }, body: JSON.stringify(error) };
}

function tooLarge(limit: number): SvcResponse {
  const error = svcError('bodyTooLarge', limit);
  return { status: error.status, headers: { 'content-type': 'application/json; charset=utf-8' }, body: JSON.stringify(error) };
}
