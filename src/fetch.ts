/**
 * Mount a service in any fetch-style runtime (Hono, Bun, Deno, Cloudflare-style workers).
 *
 * @example
 * const handler = toFetchHandler(service, { prefix: '/api' });
 * honoApp.all('/api/*', (c) => handler(c.req.raw));
 */
import { svcError } from './core/errors.js';
import type { Service } from './service.js';

export interface FetchHandlerOptions {
  /** Path prefix the service lives under, e.g. `/api`. */
  prefix?: string;
  /** Largest request body in bytes (default 1 MiB). */
  bodyLimit?: number;
}

export type FetchHandler = (request: Request) => Promise<Response>;

export function toFetchHandler(service: Service, options: FetchHandlerOptions = {}): FetchHandler {
  const prefix = options.prefix && options.prefix !== '/' ? '/' + options.prefix.replace(/^\/+|\/+$/g, '') : '';
  const bodyLimit = options.bodyLimit ?? 1024 * 1024;
  return async (request) => {
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
