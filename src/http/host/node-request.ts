import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type ProxyTrust, clientAddress } from '../client-address.js';
import type { SvcResponse } from '../types.js';

/** Node already lower-cases and joins repeated request headers; only `set-cookie` stays an array. */
export function flattenHeaders(headers: IncomingMessage['headers']): Record<string, string | undefined> {
  if (headers['set-cookie'] === undefined) return headers as Record<string, string | undefined>;
  const out: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(headers)) out[name] = Array.isArray(value) ? value.join(', ') : value;
  return out;
}

/**
 * The unread body of a node request, or undefined when there is none (most GETs and DELETEs, or a
 * body a parser mounted earlier already consumed). Stopping early leaves the stream intact, so a 413
 * can still be written; {@link sendNodeResponse} discards the rest.
 */
export function nodeBodyStream(req: IncomingMessage): AsyncIterable<Uint8Array> | undefined {
  const length = req.headers['content-length'];
  const hasBody = length !== undefined ? length !== '0' : req.headers['transfer-encoding'] !== undefined;
  if (!hasBody || req.readableEnded) return undefined;
  return { [Symbol.asyncIterator]: () => req.iterator({ destroyOnReturn: false }) };
}

/**
 * Bodies whose declared length is at most this are read whole by the host before `service.handle`
 * (a JSON body is one or two chunks): collecting 'data' events costs far less per request than
 * iterating the stream through async generators. The service still applies each route's limit.
 */
export const SMALL_BODY_BYTES = 64 * 1024;

/** The whole body of a request that declared a small `content-length`; rejects when the client leaves first. */
export function readSmallBody(req: IncomingMessage): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const onData = (chunk: Buffer) => chunks.push(chunk);
    const onEnd = () => {
      done();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    };
    const onFail = (error?: unknown) => {
      done();
      reject(error instanceof Error ? error : Object.assign(new Error('aborted'), { code: 'ECONNRESET' }));
    };
    const onClose = () => {
      if (!req.complete) onFail();
    };
    const done = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onFail);
      req.off('close', onClose);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onFail);
    req.on('close', onClose);
  });
}

/** The client's address: the socket peer, or from `X-Forwarded-For` hops the host trusts. */
export function nodeClientAddress(req: IncomingMessage, trust: ProxyTrust): string | undefined {
  const forwarded = req.headers['x-forwarded-for'];
  return clientAddress(req.socket.remoteAddress, Array.isArray(forwarded) ? forwarded.join(', ') : forwarded, trust);
}

/**
 * The address the server listens on, as the socket shows it (`http://10.0.0.5:3000`), plus the mount
 * path and prefix: the default base of absolute links when no `publicUrl` is configured. Never a
 * request header: a client chooses its Host and X-Forwarded-Host, and a link built from them (an
 * uploaded file's url) would point wherever the client likes.
 */
export function nodeBaseUrl(req: IncomingMessage, prefix: string): string {
  const socket = req.socket as IncomingMessage['socket'] & { encrypted?: boolean };
  const proto = socket.encrypted ? 'https' : 'http';
  const address = socket.localAddress?.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, '') ?? '127.0.0.1';
  const host = address.includes(':') ? `[${address}]` : address;
  // Express strips its mount path from req.url and keeps it in req.baseUrl.
  const mount = (req as IncomingMessage & { baseUrl?: string }).baseUrl ?? '';
  return `${proto}://${host}${socket.localPort === undefined ? '' : `:${socket.localPort}`}${mount}${prefix}`;
}

/**
 * Writes a response. A body the service left unread (a 413, an unknown route, an upload handler
 * that stopped early) is discarded as it arrives and the connection closes after the response, so a
 * keep-alive socket never parses leftover bytes as a request.
 */
export function sendNodeResponse(req: IncomingMessage, res: ServerResponse, response: SvcResponse): void {
  discardUnreadBody(req, response.headers);
  res.writeHead(response.status, response.headers);
  if (!response.stream) {
    res.end(response.body);
    return;
  }
  // A failed read mid-body can only cut the connection: the status line is already sent.
  pipeline(Readable.from(response.stream), res).catch(() => res.destroy());
}

/** See {@link sendNodeResponse}; for hosts that write the response themselves (Fastify). */
export function discardUnreadBody(req: IncomingMessage, headers: Record<string, string>): void {
  if (req.complete) return;
  headers.connection = 'close';
  req.resume();
}
