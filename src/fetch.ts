/**
 * Mount a service in any fetch-style runtime (Hono, Bun, Deno, Cloudflare-style workers), its
 * WebSocket upgrades (realtime, AI chat) through Hono's `upgradeWebSocket` of that runtime.
 *
 * @example
 * const handler = toFetchHandler(service, { prefix: '/api', clientAddress: (_request, c: Context) => getConnInfo(c).remote.address });
 * honoApp.get('/api/*', toHonoUpgrade(service, upgradeWebSocket, { prefix: '/api' }));
 * honoApp.all('/api/*', (c) => handler(c.req.raw, c));
 */
import { svcError } from './core/errors.js';
import type { Service } from './service.js';
import { declaredLength, limitedChunks } from './http/body-stream.js';
import { codedResponse } from './http/error-response.js';
import { deprecatedBodyLimit } from './http/host/deprecated-body-limit.js';
import { normalizePrefix, splitTarget } from './http/host/prefix.js';
import type { SvcRequest, SvcResponse } from './http/types.js';
import type { AcceptOptions, FeatureSocket } from './features/sockets.js';
import { type WebSocketContextLike, webSocketContextSocket } from './http/host/web-socket-context.js';

export type { WebSocketContextLike } from './http/host/web-socket-context.js';

/** `C` is whatever the runtime hands the handler beside the request (Hono's context, Deno's serve info...). */
export interface FetchHandlerOptions<C = unknown> {
  /** Path prefix the service lives under, e.g. `/api`. */
  prefix?: string;
  /**
   * @deprecated Set `bodyLimit` on `createService` (the one body limit, also the default of per-route
   * limits). Still honoured as a ceiling on every route, so it never loosens what it used to enforce.
   */
  bodyLimit?: number;
  /**
   * The client's address, for per-address limits. A `Request` carries none, so the runtime must say:
   * Hono `getConnInfo(c).remote.address`, Bun `server.requestIP(request)?.address`, Deno
   * `info.remoteAddr.hostname`. Without it, per-address limits are skipped (docs/mounting.md).
   */
  clientAddress?: (request: Request, context: C | undefined) => string | undefined;
}

/** The second argument is passed to `clientAddress` as is. */
export type FetchHandler<C = unknown> = (request: Request, context?: C) => Promise<Response>;

export function toFetchHandler<C = unknown>(service: Service, options: FetchHandlerOptions<C> = {}): FetchHandler<C> {
  const prefix = normalizePrefix(options.prefix);
  const ceiling = deprecatedBodyLimit(service, 'toFetchHandler', options.bodyLimit);
  return async (request, context) => {
    const url = new URL(request.url);
    const target = splitTarget(url.pathname + url.search, prefix);
    if (!target) return toResponse(codedResponse(svcError('routeNotFound', request.method, url.pathname)));
    const headers = headersOf(request);
    const stream = request.body ? webChunks(request.body) : undefined;
    const response = await service.handle({
      method: request.method,
      path: target.path,
      search: target.search,
      headers,
      body: null,
      bodyStream: stream && ceiling !== undefined ? limitedChunks(stream, ceiling, declaredLength(headers)) : stream,
      remoteAddress: options.clientAddress?.(request, context) || undefined,
      // A Request's URL takes its origin from the Host header: links are relative to the origin
      // here unless the service's `publicUrl` says where it is reached.
      baseUrl: prefix,
    });
    return toResponse(response);
  };
}

/** The events Hono's `upgradeWebSocket` takes (`WSEvents` of `hono/ws`), by shape. */
export interface WebSocketEventsLike {
  onOpen?(event: unknown, ws: WebSocketContextLike): void;
  onMessage?(event: { readonly data: unknown }, ws: WebSocketContextLike): void;
  onClose?(event: unknown, ws: WebSocketContextLike): void;
  onError?(event: unknown, ws: WebSocketContextLike): void;
}

/** The Hono context as far as svcbase reads it. */
export interface HonoContextLike {
  readonly req: { readonly raw: Request };
}

/**
 * Hono's `upgradeWebSocket` of the runtime, by shape: `hono/bun`, `hono/deno`,
 * `hono/cloudflare-workers`, or @hono/node-ws's `createNodeWebSocket({ app })`.
 */
export type UpgradeWebSocketLike = (createEvents: () => WebSocketEventsLike) => HonoMiddlewareLike;

/** A Hono middleware by shape; svcbase calls it with the context and `next` its own middleware got. */
export type HonoMiddlewareLike = (c: never, next: never) => Promise<Response | void>;

/**
 * The service's WebSocket upgrades (realtime's JSON and socket.io paths, AI chat) as a Hono
 * middleware: requests without `Upgrade: websocket` pass to `next`. Credentials and refusals are the
 * routes' own (a refused upgrade answers its coded HTTP error), and features get the same
 * FeatureSocket as on node's upgrade event. Where the runtime's socket cannot ping (a web WebSocket),
 * realtime cannot tell a silent peer from a dead one and leaves that to the connection closing.
 *
 * @example
 * const { upgradeWebSocket, injectWebSocket } = createNodeWebSocket({ app }); // @hono/node-ws
 * app.get('/api/*', toHonoUpgrade(service, upgradeWebSocket, { prefix: '/api' }));
 * app.all('/api/*', (c) => handler(c.req.raw, c));
 * injectWebSocket(serve({ fetch: app.fetch, port: 3000 }));
 */
export function toHonoUpgrade<C extends HonoContextLike = HonoContextLike>(
  service: Service,
  upgradeWebSocket: UpgradeWebSocketLike,
  options: Omit<FetchHandlerOptions<C>, 'bodyLimit'> = {},
): (c: C, next: () => Promise<void>) => Promise<Response | void> {
  const prefix = normalizePrefix(options.prefix);
  return async (c, next) => {
    const raw = c.req.raw;
    if (raw.headers.get('upgrade')?.toLowerCase() !== 'websocket') return next();
    const url = new URL(raw.url);
    const target = splitTarget(url.pathname + url.search, prefix);
    if (!target) return toResponse(codedResponse(svcError('routeNotFound', 'GET', url.pathname)));
    const request: SvcRequest = { method: 'GET', path: target.path, search: target.search, headers: headersOf(raw), body: null, remoteAddress: options.clientAddress?.(raw, c) || undefined, baseUrl: prefix };

    // The feature decides (accept, or a coded refusal) before the runtime is asked to upgrade.
    const endListeners: Array<() => void> = [];
    const ended = () => endListeners.splice(0).forEach((listener) => listener());
    let decide!: (accept: AcceptOptions | null) => void;
    const decided = new Promise<AcceptOptions | null>((resolve) => (decide = resolve));
    let open!: (socket: FeatureSocket | undefined) => void;
    const opened = new Promise<FeatureSocket | undefined>((resolve) => (open = resolve));
    const outcome = service.serveUpgrade(request, {
      accept: (acceptOptions) => {
        decide(acceptOptions);
        return opened;
      },
      onEnd: (listener) => void endListeners.push(listener),
    });
    void outcome.then(() => decide(null));
    const accept = await decided;
    if (!accept) {
      ended();
      const refused = await outcome;
      return toResponse(refused ?? codedResponse(svcError('routeNotFound', 'GET', url.pathname)));
    }
    const adapted = webSocketContextSocket(accept.maxPayload);
    const middleware = upgradeWebSocket(() => ({
      onOpen: (_event, ws) => {
        adapted.opened(ws);
        open(adapted.socket);
      },
      onMessage: (event) => adapted.message(event.data),
      onClose: () => {
        adapted.closed();
        open(undefined);
        ended();
      },
      onError: (event) => adapted.failed(event),
    })) as (c: C, next: () => Promise<void>) => Promise<Response | void>;
    const response = await middleware(c, next);
    if (!response) {
      open(undefined);
      ended();
    }
    return response;
  };
}

/** A Request's headers as the service reads them (the Headers object already lower-cases and joins them). */
function headersOf(request: Request): Record<string, string> {
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return headers;
}

function toResponse(response: SvcResponse): Response {
  const status = response.status;
  if (status === 204 || status === 304) return new Response(null, { status, headers: response.headers });
  return new Response(response.stream ? webStream(response.stream) : response.body, { status, headers: response.headers });
}

/** Chunks as a web stream, pulled one at a time; a cancelled response stops the source. */
function webStream(chunks: AsyncIterable<Uint8Array>): ReadableStream<Uint8Array> {
  const iterator = chunks[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await iterator.next();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    async cancel() {
      await iterator.return?.();
    },
  });
}

/** A web stream's chunks; stopping early cancels the stream (the runtime discards the rest). */
async function* webChunks(stream: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader();
  let done = false;
  try {
    for (;;) {
      const next = await reader.read();
      if (next.done) break;
      yield next.value;
    }
    done = true;
  } finally {
    if (!done) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}
