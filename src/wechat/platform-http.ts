import { svcError } from '../core/errors.js';
import type { JsonObject } from '../core/wire-values.js';

/** A platform reply: JSON (errors are `{errcode, errmsg}`) or bytes (QR images). */
export type PlatformReply = { readonly kind: 'json'; readonly body: JsonObject } | { readonly kind: 'bytes'; readonly body: Uint8Array; readonly contentType: string };

export interface PlatformCall {
  readonly method: 'GET' | 'POST';
  readonly url: string;
  readonly json?: JsonObject;
  readonly form?: FormData;
  readonly timeoutMs: number;
}

/**
 * One HTTP call to the platform with fetch: a JSON or multipart body, a time limit (11206 past it or
 * when the platform cannot be reached), and the reply sorted by its Content-Type, because the QR
 * endpoints answer image bytes on success and JSON on error.
 */
export async function callPlatform(call: PlatformCall, fetchImpl: typeof fetch = fetch): Promise<PlatformReply> {
  let response: Response;
  try {
    response = await fetchImpl(call.url, {
      method: call.method,
      ...(call.json ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(call.json) } : {}),
      ...(call.form ? { body: call.form } : {}),
      signal: AbortSignal.timeout(call.timeoutMs),
    });
  } catch (error) {
    const name = (error as Error).name;
    throw svcError('platformUnavailable', name === 'TimeoutError' ? `no answer within ${call.timeoutMs} ms` : (error as Error).message);
  }
  const contentType = response.headers.get('content-type') ?? '';
  const bytes = new Uint8Array(await response.arrayBuffer());
  if (!/json|text\/plain/i.test(contentType) && response.ok && bytes.length > 0 && bytes[0] !== 0x7b) {
    return { kind: 'bytes', body: bytes, contentType };
  }
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch {
    throw svcError('platformUnavailable', `HTTP ${response.status} without a JSON body`);
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw svcError('platformUnavailable', `HTTP ${response.status} with a non-object body`);
  return { kind: 'json', body: body as JsonObject };
}

/** The platform's error code of a JSON reply (0 when it has none). */
export function errcodeOf(body: JsonObject): number {
  return typeof body.errcode === 'number' ? body.errcode : 0;
}

/** A coded error (301, status 424) carrying the platform's errcode and errmsg. */
export function platformFailure(body: JsonObject): Error {
  return svcError('platformError', errcodeOf(body), typeof body.errmsg === 'string' ? body.errmsg : 'unknown error');
}
