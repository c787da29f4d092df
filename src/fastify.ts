/**
 * Mount a service in Fastify. The plugin keeps its body parser inside its own encapsulation context
 * (the rest of the Fastify app keeps its JSON parsing); that parser leaves the body unread, so the
 * service reads it within the route's body limit, or streams it to upload routes.
 *
 * @example
 * await fastify.register(svcbaseFastify, { service, prefix: '/api' });
 */
import { Readable } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import type { Service } from './service.js';
import { declaredLength, limitedChunks } from './http/body-stream.js';
import { deprecatedBodyLimit } from './http/host/deprecated-body-limit.js';
import { flattenHeaders, nodeBaseUrl, nodeBodyStream, discardUnreadBody } from './http/host/node-request.js';
import { splitTarget } from './http/host/prefix.js';

// The socket limits of Fastify's server: `applyServerLimits(fastify.server)` (docs/mounting.md, "Server limits").
export { SERVER_LIMITS, type ServerLimitOptions, type ServerLimits, applyServerLimits } from './http/host/node-server.js';

export interface FastifyPluginOptions {
  service: Service;
  /**
   * @deprecated Set `bodyLimit` on `createService` (the one body limit, also the default of per-route
   * limits). Still honoured as a ceiling on every route, so it never loosens what it used to enforce.
   */
  bodyLimit?: number;
  /** Passed by `fastify.register(plugin, { prefix })`. */
  prefix?: string;
}

interface FastifyRequestLike {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body?: unknown;
  raw: IncomingMessage;
  ip?: string;
}

interface FastifyReplyLike {
  code(status: number): FastifyReplyLike;
  headers(values: Record<string, string>): FastifyReplyLike;
  send(body?: unknown): FastifyReplyLike;
}

/** The few Fastify instance methods the plugin calls (described by shape: svcbase does not import fastify). */
export interface FastifyInstanceLike {
  readonly prefix: string;
  removeAllContentTypeParsers(): void;
  addContentTypeParser(type: string, parser: (req: unknown, payload: IncomingMessage, done: (error: Error | null, body?: unknown) => void) => void): void;
  route(options: { method: string[]; url: string; handler: (req: FastifyRequestLike, reply: FastifyReplyLike) => Promise<unknown> }): void;
}

const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'];
/** Marks "there is a body, still unread" for the handler (the parser's result). */
const UNREAD = Symbol('svcbase.unread-body');

export async function svcbaseFastify(instance: FastifyInstanceLike, options: FastifyPluginOptions): Promise<void> {
  const { service } = options;
  const ceiling = deprecatedBodyLimit(service, 'svcbaseFastify', options.bodyLimit);
  const prefix = instance.prefix;
  instance.removeAllContentTypeParsers();
  instance.addContentTypeParser('*', (_req, _payload, done) => done(null, UNREAD));
  const handler = async (req: FastifyRequestLike, reply: FastifyReplyLike) => {
    const target = splitTarget(req.url, prefix) ?? splitTarget(req.url, '')!;
    const headers = flattenHeaders(req.raw.headers);
    const stream = req.body === UNREAD ? nodeBodyStream(req.raw) : undefined;
    const response = await service.handle({
      method: req.method,
      path: target.path,
      search: target.search,
      headers,
      body: null,
      bodyStream: stream && ceiling !== undefined ? limitedChunks(stream, ceiling, declaredLength(headers)) : stream,
      // Fastify's request.ip already honours Fastify's own trustProxy option.
      remoteAddress: req.ip,
      // The listen address from the socket, never the Host header (links use `publicUrl` when set).
      baseUrl: nodeBaseUrl(req.raw, prefix),
    });
    discardUnreadBody(req.raw, response.headers);
    reply.code(response.status).headers(response.headers);
    if (response.stream) return reply.send(Readable.from(response.stream));
    return reply.send(typeof response.body === 'string' ? response.body : Buffer.from(response.body));
  };
  instance.route({ method: METHODS, url: '/', handler });
  instance.route({ method: METHODS, url: '/*', handler });
}
