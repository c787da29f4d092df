import type { ApplicationConfig, Service } from '../../index.js';
import type { Json } from '../../core/wire-values.js';

/** A file as a File column holds it. */
export interface FileRef {
  readonly filename: string;
  readonly url: string;
  readonly cdn?: string;
}

/** A failed call: the server's `{code, error}` when it sent one. */
export class RestError extends Error {
  override readonly name = 'RestError';
  constructor(
    readonly status: number,
    readonly code: number | undefined,
    message: string,
  ) {
    super(message);
  }
}

/**
 * A server speaking the hosted REST API with an application's master key: remote over HTTP, or a
 * service in this process (the CLI's own stores).
 */
export interface RestClient {
  /** Where it is, for reports. */
  readonly label: string;
  /** A JSON call; throws RestError unless the answer is 2xx. */
  json(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, options?: { query?: Record<string, string>; body?: Json }): Promise<Json>;
  /** `POST /2/files/<filename>` with the raw bytes. */
  upload(filename: string, bytes: Uint8Array): Promise<FileRef>;
  /** The bytes a File column's url points at. */
  download(url: string): Promise<Uint8Array>;
}

/** Header names carry a brand: `X-Bmob-…` for the hosted service, `X-Svc-…` for svcbase's own. */
function keyHeaders(brand: string, applicationId: string, masterKey: string): Record<string, string> {
  return { [`x-${brand.toLowerCase()}-application-id`]: applicationId, [`x-${brand.toLowerCase()}-master-key`]: masterKey };
}

function failure(status: number, text: string): RestError {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const body = parsed as { code?: unknown; error?: unknown } | undefined;
  const code = typeof body?.code === 'number' ? body.code : undefined;
  const message = typeof body?.error === 'string' ? body.error : text.slice(0, 200) || `HTTP ${status}`;
  return new RestError(status, code, code === undefined ? `HTTP ${status}: ${message}` : `${code} ${message}`);
}

const searchOf = (query: Record<string, string> | undefined) => (query ? new URLSearchParams(query).toString() : '');

export interface HttpClientOptions {
  /** The server's REST root, e.g. `https://api.example.com` (the part before `/1/...`). */
  readonly baseUrl: string;
  readonly applicationId: string;
  readonly masterKey: string;
  /** Header brand (default `Bmob`: the hosted service, and svcbase with `brands: ['Svc', 'Bmob']`). */
  readonly brand?: string;
  /** Longest one call may take, in ms (default 60 s). */
  readonly timeoutMs?: number;
}

export function httpRestClient(options: HttpClientOptions): RestClient {
  const base = options.baseUrl.replace(/\/+$/, '');
  const headers = keyHeaders(options.brand ?? 'Bmob', options.applicationId, options.masterKey);
  const timeoutMs = options.timeoutMs ?? 60_000;
  const call = async (method: string, url: string, body?: Uint8Array | string, contentType?: string) => {
    const response = await fetch(url, {
      method,
      headers: { ...headers, ...(contentType ? { 'content-type': contentType } : {}) },
      ...(body === undefined ? {} : { body }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (response.status >= 300) throw failure(response.status, await response.text());
    return response;
  };
  return {
    label: base,
    async json(method, path, { query, body } = {}) {
      const search = searchOf(query);
      const response = await call(method, `${base}${path}${search ? `?${search}` : ''}`, body === undefined ? undefined : JSON.stringify(body), body === undefined ? undefined : 'application/json');
      return (await response.json()) as Json;
    },
    async upload(filename, bytes) {
      const response = await call('POST', `${base}/2/files/${encodeURIComponent(filename)}`, bytes, 'application/octet-stream');
      return (await response.json()) as FileRef;
    },
    async download(url) {
      // A file served by this same server is fetched with its keys (a private store may want them).
      const absolute = new URL(url, `${base}/`);
      const response = await fetch(absolute, { ...(absolute.origin === new URL(base).origin ? { headers } : {}), signal: AbortSignal.timeout(timeoutMs) });
      if (!response.ok) throw failure(response.status, await response.text());
      return new Uint8Array(await response.arrayBuffer());
    },
  };
}

/**
 * A service in this process, called through `service.handle` as its HTTP host would. `publicUrl` is
 * the base of uploaded files' urls; `label` says what the service serves (the stores it opened), as
 * reports name it: no server listens at `publicUrl` while the CLI copies.
 */
export function serviceRestClient(service: Service, app: ApplicationConfig, publicUrl: string, label: string): RestClient {
  const headers = keyHeaders('Svc', app.applicationId, app.masterKey);
  const base = publicUrl.replace(/\/+$/, '');
  const call = async (method: string, path: string, search: string, body: Uint8Array | null, contentType?: string) => {
    const reply = await service.handle({ method, path, search, headers: { ...headers, ...(contentType ? { 'content-type': contentType } : {}) }, body, baseUrl: base });
    const bytes = reply.stream ? await collect(reply.stream) : typeof reply.body === 'string' ? new TextEncoder().encode(reply.body) : reply.body;
    if (reply.status >= 300) throw failure(reply.status, new TextDecoder().decode(bytes));
    return bytes;
  };
  const parse = (bytes: Uint8Array) => JSON.parse(new TextDecoder().decode(bytes)) as Json;
  return {
    label,
    async json(method, path, { query, body } = {}) {
      return parse(await call(method, path, searchOf(query), body === undefined ? null : new TextEncoder().encode(JSON.stringify(body)), body === undefined ? undefined : 'application/json'));
    },
    async upload(filename, bytes) {
      return parse(await call('POST', `/2/files/${encodeURIComponent(filename)}`, '', bytes, 'application/octet-stream')) as unknown as FileRef;
    },
    async download(url) {
      const target = new URL(url, `${base}/`);
      return call('GET', target.pathname, target.search.slice(1), null);
    },
  };
}

async function collect(stream: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks);
}
