/**
 * Mount a service in any fetch-style runtime (Hono, Bun, Deno, Cloudflare-style workers).
 *
 * @example
 * const handler = toFetchHandler(service, { prefix: '/api', clientAddress: (_request, c: Context) => getConnInfo(c).remote.address });
 * honoApp.all('/api/*', (c) => handler(c.req.raw, c));
 */
import { svcError } from './core/errors.js';
import type { Service } from './service.js';
import { declaredLength, limitedChunks } from './http/body-stream.js';
import { codedResponse } from './http/error-response.js';
import { deprecatedBodyLimit } from './http/host/deprecated-body-limit.js';
import { normalizePrefix, splitTarget } from './http/host/prefix.js';
import type { SvcResponse } from './http/types.js';

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
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => {
      headers[name] = value;
    });
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
