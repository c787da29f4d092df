import { svcError } from '../core/errors.js';
import type { RouteContext, RouteDef, RouteResult } from '../features/routes.js';
import { isActiveType } from './content-type.js';
import type { ByteRange, FileStore, StoredFileInfo } from './file-store.js';
import { merged } from '../core/copy.js';

const KEY_PARTS = { y: /^\d{4}$/, m: /^\d{2}$/, d: /^\d{2}$/, name: /^[0-9a-f]{32}(?:\.[a-z0-9]{1,10})?$/ } as const;

/**
 * `GET` and `HEAD /files/<namespace>/<yyyy>/<mm>/<dd>/<name>`: the url an upload answers when the
 * store has no public url. Public, like a CDN link (the 128-bit random name is the only secret).
 * Answers `Range` (one range; 206, or 416 when unsatisfiable), `ETag`/`Last-Modified` with 304 on
 * `If-None-Match`/`If-Modified-Since`, the stored `Content-Type`, `nosniff`, a sandboxing CSP, and
 * `Content-Disposition: attachment` for types a browser could run script in (HTML, SVG, XML, ...).
 * The host kit answers with whole bodies, so the served part is read into memory (within the app's
 * file size limit); large files are best fetched by range or from a store's public url.
 */
export function serveRoutes(store: FileStore, namespaces: ReadonlySet<string>): RouteDef[] {
  const handler = (ctx: RouteContext) => serveFile(ctx, store, namespaces);
  const path = '/files/:ns/:y/:m/:d/:name';
  return [
    { method: 'GET', path, auth: 'none', body: 'none', handler },
    { method: 'HEAD', path, auth: 'none', body: 'none', handler },
  ];
}

/** Bodies past this size are streamed to the client instead of buffered. */
export const STREAM_FROM_BYTES = 1024 * 1024;

async function serveFile(ctx: RouteContext, store: FileStore, namespaces: ReadonlySet<string>): Promise<RouteResult> {
  const p = ctx.params;
  const valid = namespaces.has(p.ns!) && (Object.keys(KEY_PARTS) as Array<keyof typeof KEY_PARTS>).every((k) => KEY_PARTS[k].test(p[k]!));
  const key = `${p.ns}/${p.y}/${p.m}/${p.d}/${p.name}`;
  if (!valid) throw svcError('fileNotFound', p.name ?? '');
  const info = await store.stat(key);
  if (!info) throw svcError('fileNotFound', p.name!);
  const headers = fileHeaders(info);
  if (notModified(ctx.headers, info)) return { status: 304, headers, body: '', raw: true };
  const range = requestedRange(ctx.headers, info);
  if (range === 'unsatisfiable') {
    return { status: 416, headers: merged(headers, { 'content-range': `bytes */${info.size}` }), body: '', raw: true };
  }
  const head = ctx.method === 'HEAD';
  const length = range ? range.end - range.start + 1 : info.size;
  if (range) {
    headers['content-range'] = `bytes ${range.start}-${range.end}/${info.size}`;
  }
  if (head) return { status: range ? 206 : 200, headers: merged(headers, { 'content-length': String(length) }), body: '', raw: true };
  const read = await store.get(key, range ?? undefined);
  if (!read) throw svcError('fileNotFound', p.name!);
  const status = range ? 206 : 200;
  // Large bodies are written as the store reads them, never held whole in memory.
  if (length > STREAM_FROM_BYTES) return { status, headers: merged(headers, { 'content-length': String(length) }), body: '', raw: true, stream: read.body };
  const bytes = Buffer.concat(await collect(read.body));
  return { status, headers, body: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), raw: true };
}

function fileHeaders(info: StoredFileInfo): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': info.contentType,
    'accept-ranges': 'bytes',
    etag: info.etag,
    'last-modified': new Date(info.lastModified).toUTCString(),
    'cache-control': 'public, max-age=31536000, immutable',
    'x-content-type-options': 'nosniff',
    'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
  };
  headers['content-disposition'] = `${isActiveType(info.contentType) ? 'attachment' : 'inline'}; ${dispositionName(info.filename)}`;
  return headers;
}

/** `filename="ascii fallback"; filename*=UTF-8''percent-encoded` (RFC 6266): no quote or newline escapes the header. */
export function dispositionName(filename: string): string {
  const fallback = filename.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  return `filename="${fallback}"; filename*=UTF-8''${encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`;
}

function notModified(headers: RouteContext['headers'], info: StoredFileInfo): boolean {
  const inm = headers['if-none-match'];
  if (inm !== undefined) return inm.split(',').some((tag) => tag.trim() === info.etag || tag.trim() === `W/${info.etag}` || tag.trim() === '*');
  const ims = headers['if-modified-since'];
  if (ims === undefined) return false;
  const since = Date.parse(ims);
  return !Number.isNaN(since) && Math.floor(info.lastModified / 1000) * 1000 <= since;
}

/** The one byte range asked for, null for the whole file, or 'unsatisfiable' (416). Several ranges get the whole file. */
export function requestedRange(headers: RouteContext['headers'], info: StoredFileInfo): ByteRange | null | 'unsatisfiable' {
  const header = headers.range;
  if (header === undefined || info.size === 0) return null;
  const ifRange = headers['if-range'];
  if (ifRange !== undefined && ifRange.trim() !== info.etag) return null;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match) return header.trim().startsWith('bytes=') && header.includes(',') ? null : 'unsatisfiable';
  const [, first, last] = match;
  if (first === '' && last === '') return 'unsatisfiable';
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0) return 'unsatisfiable';
    return { start: Math.max(0, info.size - suffix), end: info.size - 1 };
  }
  const start = Number(first);
  const end = last === '' ? info.size - 1 : Math.min(Number(last), info.size - 1);
  if (start >= info.size || end < start) return 'unsatisfiable';
  return { start, end };
}

async function collect(body: AsyncIterable<Uint8Array>): Promise<Uint8Array[]> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of body) chunks.push(chunk);
  return chunks;
}
