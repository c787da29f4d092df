import type { Json } from '../../core/wire-values.js';

/**
 * A request as a sandbox receives it: the JSON of what every function gets (method, body, query,
 * path), and the two parts few functions read, made when the function first reads them (a
 * synchronous host call from the prelude): the headers' JSON and the raw body's base64.
 */
export interface SandboxRequest {
  /** JSON of `{method, body, query, path}`. */
  readonly rest: string;
  /** Whether there is a raw body (`request.raw` is left undefined without one). */
  readonly hasRaw: boolean;
  /** The headers as JSON text. */
  headers(): string;
  /** The raw body as base64 ('' without one). */
  raw(): string;
}

/** The parts the host has at hand: `headers` is called at most once, and only when the function reads them. */
export function lazySandboxRequest(rest: Json, headers: () => Readonly<Record<string, string>>, raw: Uint8Array | undefined): SandboxRequest {
  let headersText: string | undefined;
  return {
    rest: JSON.stringify(rest),
    hasRaw: raw !== undefined && raw.byteLength > 0,
    headers: () => (headersText ??= JSON.stringify(headers())),
    // A view of the bytes, not a copy.
    raw: () => (raw ? Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('base64') : ''),
  };
}

/**
 * A request as one text, for a worker (a message crosses threads whole): the rest's JSON, the
 * headers' JSON and the raw body's base64, split by U+0001 (JSON text holds control characters only
 * escaped, base64 none).
 */
export function sandboxRequestText(request: SandboxRequest): string {
  return `${request.rest}\u0001${request.headers()}\u0001${request.hasRaw ? request.raw() : ''}`;
}

/** The request a worker received as {@link sandboxRequestText}; a text without the separators is the rest alone. */
export function sandboxRequestOfText(text: string): SandboxRequest {
  const cut = text.indexOf('\u0001');
  if (cut < 0) return { rest: text, hasRaw: false, headers: () => '{}', raw: () => '' };
  const rawAt = text.indexOf('\u0001', cut + 1) + 1;
  const raw = rawAt > 0 ? text.slice(rawAt) : '';
  const headers = text.slice(cut + 1, rawAt > 0 ? rawAt - 1 : text.length);
  return { rest: text.slice(0, cut), hasRaw: raw !== '', headers: () => headers, raw: () => raw };
}
