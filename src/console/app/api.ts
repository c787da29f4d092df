/** A REST call that failed: the service's numeric code and message when it sent them. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: number | undefined,
    message: string,
  ) {
    super(message);
  }
}

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** Who is signed in: an application id and its master key (kept in this tab's sessionStorage only). */
export interface Credentials {
  readonly applicationId: string;
  readonly masterKey: string;
}

const STORAGE_KEY = 'svcbase-console';

export function loadCredentials(): Credentials | null {
  const text = sessionStorage.getItem(STORAGE_KEY);
  if (!text) return null;
  try {
    const parsed = JSON.parse(text) as Partial<Credentials>;
    return typeof parsed.applicationId === 'string' && typeof parsed.masterKey === 'string' ? { applicationId: parsed.applicationId, masterKey: parsed.masterKey } : null;
  } catch {
    return null;
  }
}

export function saveCredentials(credentials: Credentials | null): void {
  if (credentials) sessionStorage.setItem(STORAGE_KEY, JSON.stringify(credentials));
  else sessionStorage.removeItem(STORAGE_KEY);
}

/** What the API console shows of one call: status, time and the answer's text. */
export interface RawAnswer {
  readonly status: number;
  readonly ms: number;
  readonly contentType: string;
  readonly text: string;
}

/** The service's REST API with the master key, from the page's own origin. */
export class Api {
  constructor(
    private readonly base: string,
    readonly brand: string,
    readonly credentials: Credentials,
  ) {}

  /** The header name of a credential under the service's brand (`X-Svc-Master-Key`). */
  header(name: 'Application-Id' | 'Master-Key' | 'REST-API-Key' | 'Session-Token'): string {
    return `X-${this.brand}-${name}`;
  }

  /** Any call, as typed: the headers given (none added but the application id), timed, never thrown for a status. */
  async raw(method: string, pathAndQuery: string, headers: Record<string, string>, body: string | undefined): Promise<RawAnswer> {
    const started = performance.now();
    const response = await fetch(`${this.base}${pathAndQuery}`, {
      method,
      headers: { [this.header('Application-Id')]: this.credentials.applicationId, ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body }),
    });
    const text = await response.text();
    return { status: response.status, ms: performance.now() - started, contentType: response.headers.get('content-type') ?? '', text };
  }

  /** Uploads a file (`POST /2/files/<name>`): the File value to store in a column. */
  async upload(file: File): Promise<JsonObject> {
    const response = await fetch(`${this.base}/2/files/${encodeURIComponent(file.name)}`, {
      method: 'POST',
      headers: { [this.header('Application-Id')]: this.credentials.applicationId, [this.header('Master-Key')]: this.credentials.masterKey, 'content-type': file.type || 'application/octet-stream' },
      body: file,
    });
    const reply = (await response.json()) as JsonObject;
    if (!response.ok) throw new ApiError(response.status, typeof reply['code'] === 'number' ? reply['code'] : undefined, `${String(reply['code'] ?? response.status)}: ${String(reply['error'] ?? 'upload failed')}`);
    return { __type: 'File', filename: String(reply['filename'] ?? file.name), url: String(reply['url'] ?? ''), ...(typeof reply['cdn'] === 'string' ? { cdn: reply['cdn'] } : {}) };
  }

  /** The Prometheus text of the application's metrics (`GET /1/metrics?format=prometheus`). */
  async text(path: string): Promise<string> {
    const answer = await this.raw('GET', path, { [this.header('Master-Key')]: this.credentials.masterKey }, undefined);
    if (answer.status >= 400) throw new ApiError(answer.status, undefined, `HTTP ${answer.status}`);
    return answer.text;
  }

  async request(method: string, path: string, options: { query?: Record<string, string>; body?: Json } = {}): Promise<JsonObject> {
    const search = options.query ? `?${new URLSearchParams(options.query)}` : '';
    const response = await fetch(`${this.base}${path}${search}`, {
      method,
      headers: {
        [this.header('Application-Id')]: this.credentials.applicationId,
        [this.header('Master-Key')]: this.credentials.masterKey,
        ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
    });
    const text = await response.text();
    let parsed: unknown = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = text;
    }
    if (!response.ok) {
      const body = (parsed ?? {}) as { code?: unknown; error?: unknown };
      const code = typeof body.code === 'number' ? body.code : undefined;
      const message = typeof body.error === 'string' ? body.error : `HTTP ${response.status}`;
      throw new ApiError(response.status, code, code === undefined ? message : `${code}: ${message}`);
    }
    return (parsed ?? {}) as JsonObject;
  }
}

/** The REST path listing a table's records (system tables have routes of their own). */
export function recordsPath(table: string): string {
  if (table === '_User') return '/1/users';
  if (table === '_Role') return '/1/roles';
  if (table === '_Installation') return '/1/installations';
  return `/1/classes/${encodeURIComponent(table)}`;
}

export const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Every record of a where, 1000 a call in objectId order (exports, bulk work). */
export async function allRecords(api: Api, table: string, where: Json, max = 100_000): Promise<JsonObject[]> {
  const out: JsonObject[] = [];
  for (;;) {
    const last = out.at(-1)?.['objectId'];
    const page = typeof last === 'string' ? { $and: [where, { objectId: { $gt: last } }] } : where;
    const reply = await api.request('GET', recordsPath(table), { query: { where: JSON.stringify(page), order: 'objectId', limit: '1000' } });
    const results = (reply['results'] as JsonObject[]) ?? [];
    out.push(...results);
    if (results.length < 1000 || out.length >= max) return out;
  }
}

/** One write of a bulk operation on a table: a create (no objectId), an update or a delete. */
export interface BulkWrite {
  readonly method: 'POST' | 'PUT' | 'DELETE';
  readonly objectId?: string;
  readonly body?: JsonObject;
}

/**
 * Runs writes on one table: through `POST /1/batch`, 50 a request, for tables it serves; one call
 * each for `_User` (the batch refuses it). The failures come back with their index and message.
 */
export async function bulk(api: Api, table: string, writes: readonly BulkWrite[]): Promise<{ done: number; failed: Array<{ index: number; error: string }> }> {
  let done = 0;
  const failed: Array<{ index: number; error: string }> = [];
  const pathOf = (write: BulkWrite, base: string) => (write.objectId === undefined ? base : `${base}/${encodeURIComponent(write.objectId)}`);
  if (table === '_User') {
    for (const [index, write] of writes.entries()) {
      try {
        await api.request(write.method, pathOf(write, recordsPath(table)), write.body ? { body: write.body } : {});
        done++;
      } catch (error) {
        failed.push({ index, error: errorText(error) });
      }
    }
    return { done, failed };
  }
  const base = `/1/classes/${encodeURIComponent(table)}`;
  for (let start = 0; start < writes.length; start += 50) {
    const chunk = writes.slice(start, start + 50);
    const reply = (await api.request('POST', '/1/batch', { body: { requests: chunk.map((w) => ({ method: w.method, path: pathOf(w, base), ...(w.body ? { body: w.body } : {}) })) } })) as unknown as Json;
    const items = Array.isArray(reply) ? reply : [];
    items.forEach((item, i) => {
      const error = typeof item === 'object' && item !== null && !Array.isArray(item) ? item['error'] : undefined;
      if (error && typeof error === 'object' && !Array.isArray(error)) failed.push({ index: start + i, error: `${String(error['code'])}: ${String(error['error'])}` });
      else done++;
    });
  }
  return { done, failed };
}
