import type { Json } from '../core/wire-values.js';
import type { FunctionResponse } from './contract.js';

/** What a function sent: its value, status and headers. */
export interface SentReply {
  readonly value: Json | Uint8Array | undefined;
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
}

/** Header names a function may set: tokens only (no CR/LF can reach the wire). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$/;
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]{0,8192}$/;

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
    onSend({ value, status, headers: headers ? { ...headers } : NO_HEADERS });
  };
  const response: FunctionResponse = {
    send: finish,
    end: finish,
    setHeader(name, value) {
      if (typeof name !== 'string' || !HEADER_NAME.test(name)) throw new TypeError(`invalid header name: ${String(name).slice(0, 64)}`);
      const text = String(value);
      if (!HEADER_VALUE.test(text)) throw new TypeError(`invalid value for header ${name}`);
      (headers ??= {})[name.toLowerCase()] = text;
    },
    status(code) {
      if (!Number.isInteger(code) || code < 200 || code > 599) throw new TypeError(`invalid status: ${String(code)}`);
      status = code;
      return response;
    },
  };
  return response;
}
