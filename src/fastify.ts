/**
 * Mount a service in Fastify. The plugin keeps its raw-body parser inside its own encapsulation
 * context, so the rest of the Fastify app keeps its JSON parsing.
 *
 * @example
 * await fastify.register(svcbaseFastify, { service, prefix: '/api' });
 */
import { svcError } from './core/errors.js';
import type { Service } from './service.js';

export interface FastifyPluginOptions {
  service: Service;
  /** Largest request body in bytes (default 1 MiB). */
  bodyLimit?: number;
  /** Passed by `fastify.register(plugin, { prefix })`. */
  prefix?: string;
}

interface FastifyRequestLike {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body?: unknown;
  ip?: string;
  protocol?: string;
  host?: string;
  hostname?: string;
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
  addContentTypeParser(
    type: string,
    options: { parseAs: 'buffer'; bodyLimit?: number },
    parser: (req: unknown, body: Buffer, done: (error: Error | null, body?: unknown) => void) => void,
  ): void;
  setErrorHandler(handler: (error: { statusCode?: number; message: string }, req: FastifyRequestLike, reply: FastifyReplyLike) => unknown): void;
  route(options: {
    method: string[];
    url: string;
    bodyLimit?: number;
    handler: (req: FastifyRequestLike, reply: FastifyReplyLike) => Promise<unknown>;
  }): void;
}

const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'];

export async function svcbaseFastify(instance: FastifyInstanceLike, options: FastifyPluginOptions): Promise<void> {
  const { service } = options;
  const bodyLimit = options.bodyLimit ?? 1024 * 1024;
  const prefix = instance.prefix;
  instance.removeAllContentTypeParsers();
  instance.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit }, (_req, body, done) => done(null, body));
  instance.setErrorHandler((error, _req, reply) => {
    const coded = error.statusCode === 413 ? svcError('bodyTooLarge', bodyLimit) : undefined;
    if (coded) return reply.code(coded.status).headers({ 'content-type': 'application/json; charset=utf-8' }).send(JSON.stringify(coded));
    return reply.code(error.statusCode ?? 500).headers({ 'content-type': 'application/json; charset=utf-8' }).send(JSON.stringify({ error: 'bad request' }));
  });
  const handler = async (req: FastifyRequestLike, reply: FastifyReplyLike) => {
    const queryAt = req.url.indexOf('?');
    const fullPath = queryAt === -1 ? req.url : req.url.slice(0, queryAt);
    const path = prefix && fullPath.startsWith(prefix) ? fullPath.slice(prefix.length) || '/' : fullPath;
    const headers: Record<string, string | undefined> = {};
    for (const [name, value] of Object.entries(req.headers)) headers[name] = Array.isArray(value) ? value.join(', ') : value;
    const body = req.body instanceof Uint8Array && req.body.length > 0 ? req.body : null;
    const host = req.host ?? req.hostname ?? headers.host ?? 'localhost';
    const response = await service.handle({
      method: req.method,
      path,
      search: queryAt === -1 ? '' : req.url.slice(queryAt + 1),
      headers,
      body,
      remoteAddress: req.ip,
      baseUrl: `${req.protocol ?? 'http'}://${host}${prefix}`,
    });
    reply.code(response.status).headers(response.headers);
    return reply.send(typeof response.body === 'string' ? response.body : Buffer.from(response.body));
  };
  instance.route({ method: METHODS, url: '/', bodyLimit, handler });
  instance.route({ method: METHODS, url: '/*', bodyLimit, handler });
}
