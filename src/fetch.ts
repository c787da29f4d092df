/**
 * Mount a service in any fetch-style runtime (Hono, Bun, Deno, Cloudflare-style workers).
 *
 * @example
 * const handler = toFetchHandler(service, { prefix: '/api', clientAddress: (_request, c: Context) => getConnInfo(c).remote.address });
 * honoApp.all('/api/*', (c) => handler(c.req.raw, c));
 */
import { svcError } from './core/errors.js';
import type { Service } from './service.js';

/** `C` is whatever the runtime hands the handler beside the request (Hono's context, Deno's serve info...). */
export interface FetchHandlerOptions<C = unknown> {
  /** Path prefix the service lives under, e.g. `/api`. */
  prefix?: string;
  /** Largest request body in bytes (default 1 MiB). */
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
  const prefix = options.prefix && options.prefix !== '/' ? '/' + options.prefix.replace(/^\/+|\/+$/g, '') : '';
  const bodyLimit = options.bodyLimit ?? 1024 * 1024;
  return async (request, context) => {
    const url = new URL(request.url);
    let path = url.pathname;
    if (prefix) {
      if (path !== prefix && !path.startsWith(prefix + '/')) return jsonError(svcError('routeNotFound', request.method, path));
      path = path.slice(prefix.length) || '/';
    }
    const declared = Number(request.headers.get('content-length') ?? NaN);
    if (declared > bodyLimit) return jsonError(svcError('bodyTooLarge', bodyLimit));
    const buffer = request.body ? await readLimited(request.body, bodyLimit) : null;
    if (buffer === 'too-large') return jsonError(svcError('bodyTooLarge', bodyLimit));
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => {
      headers[name] = value;
    });
    const response = await service.handle({
      method: request.method,
      path,
      search: url.search.replace(/^\?/, ''),
      headers,
      body: buffer && buffer.length > 0 ? buffer : null,
      remoteAddress: options.clientAddress?.(request, context) || undefined,
      baseUrl: `${url.origin}${prefix}`,
    });
    const status = response.status;
    const body = status === 204 || status === 304 ? null : response.body;
    return new Response(body, { status, headers: response.headers });
  };
}

function jsonError(error: ReturnType<typeof svcError>): Response {
  return new Response(JSON.stringify(error), {
    status: error.status,
    headers: { 'content-type': 'application/json; charset=utf-8' },
  });
}

/** Reads a body stream, giving up (and cancelling the stream) as soon as it passes `limit` bytes. */
async function readLimited(stream: ReadableStream<Uint8Array>, limit: number): Promise<Uint8Array | 'too-large'> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > limit) {
      await reader.cancel();
      return 'too-large';
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}
