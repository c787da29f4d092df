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

/** The service's REST API with the master key, from the page's own origin. */
export class Api {
  constructor(
    private readonly base: string,
    private readonly brand: string,
    readonly credentials: Credentials,
  ) {}

  async request(method: string, path: string, options: { query?: Record<string, string>; body?: Json } = {}): Promise<JsonObject> {
    const search = options.query ? `?${new URLSearchParams(options.query)}` : '';
    const response = await fetch(`${this.base}${path}${search}`, {
      method,
      headers: {
        [`X-${this.brand}-Application-Id`]: this.credentials.applicationId,
        [`X-${this.brand}-Master-Key`]: this.credentials.masterKey,
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
