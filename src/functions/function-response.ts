import type { Json } from '../core/wire-values.js';
import type { FunctionResponse } from './contract.js';
import { copyOf } from '../core/copy.js';

/** What a function sent: its value, status and headers. */
export interface SentReply {
  readonly value: Json | Uint8Array | undefined;
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
}

/** Header names a function may set: tokens only (no CR/LF can reach the wire). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$/;
/** Header values: Latin-1 text without control characters other than tab (RFC 9110 field-value). */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]{0,8192}$/;
/** Headers one reply may set. */
const MAX_HEADERS = 64;

/** Why a header cannot be sent as given, or null. */
export function headerProblem(name: unknown, value: unknown): string | null {
  if (typeof name !== 'string' || !HEADER_NAME.test(name)) return `invalid header name: ${String(name).slice(0, 64)}`;
  if (!HEADER_VALUE.test(String(value))) return `invalid value for header ${name}`;
  return null;
}

/** Why a status cannot be sent, or null: a final status is an integer from 200 to 599. */
export function statusProblem(code: unknown): string | null {
  return typeof code === 'number' && Number.isInteger(code) && code >= 200 && code <= 599 ? null : `invalid status: ${String(code).slice(0, 32)}`;
}

/**
 * Why a reply that crossed a boundary (from a sandbox worker or a JVM) cannot be sent, or null:
 * its status and every header are checked as `response.status` and `response.setHeader` check
 * them for a host function.
 */
export function replyProblem(status: unknown, headers: unknown): string | null {
  const bad = statusProblem(status);
  if (bad) return bad;
  if (typeof headers !== 'object' || headers === null || Array.isArray(headers)) return 'headers must be an object';
  const entries = Object.entries(headers);
  if (entries.length > MAX_HEADERS) return `at most ${MAX_HEADERS} headers`;
  for (const [name, value] of entries) {
    if (typeof value !== 'string') return `invalid value for header ${String(name).slice(0, 64)}`;
    const problem = headerProblem(name, value);
    if (problem) return problem;
  }
  return null;
}

/**
 * The response object handed to a function; `onSend` gets what it sent: the first `send`/`end` wins,
 * later ones are ignored (the hosted service sends once). Bad headers or statuses throw at the call,
 * inside the function.
 */
const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

export function functionResponse(onSend: (reply: SentReply) => void): FunctionResponse {
  let done = false;
  let status = 200;
  // Made on the first setHeader: most functions set none.
  let headers: Record<string, string> | undefined;
  const finish = (value?: Json | Uint8Array) => {
    if (done) return;
    done = true;
    onSend({ value, status, headers: headers ? copyOf(headers) : NO_HEADERS });
  };
  const response: FunctionResponse = {
    send: finish,
    end: finish,
    setHeader(name, value) {
      const problem = headerProblem(name, value);
      if (problem) throw new TypeError(problem);
      (headers ??= {})[name.toLowerCase()] = String(value);
    },
    status(code) {
      const problem = statusProblem(code);
      if (problem) throw new TypeError(problem);
      status = code;
      return response;
    },
  };
  return response;
}
