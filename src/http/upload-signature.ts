import { createHash } from 'node:crypto';
import { secretsEqual } from '../core/secrets.js';
import { requestSignature } from './signature.js';

/** The parts of an upload's signature every variant shares. */
export interface UploadSignatureParts {
  /** `/2/files/<name>` as the client signed it (percent-decoded). */
  readonly route: string;
  readonly timestamp: string;
  readonly securityCode: string;
  readonly nonce: string;
  /** `X-…-SDK-Version`; undefined on mini-program and quick-app uploads. */
  readonly sdkVersion: string | undefined;
}

/**
 * Signature variants that need no body bytes (sdk-wire §2.5, §2.6):
 * - `empty-body`: the standard formula over an empty body (a signed request to a stream route, D47);
 * - `empty-object`: the standard formula over `{}` (a browser `File`/`Blob`, which JSON-stringifies to `{}`);
 * - `legacy`: `md5(route ‖ ts ‖ code ‖ nonce)` with no body and no version (mini-program, quick app).
 */
export function headSignatureVariant(parts: UploadSignatureParts, signature: string): 'empty-body' | 'empty-object' | 'legacy' | null {
  const sent = signature.toLowerCase();
  const legacy = createHash('md5').update(parts.route + parts.timestamp + parts.securityCode + parts.nonce, 'utf8').digest('hex');
  if (secretsEqual(legacy, sent)) return 'legacy';
  if (parts.sdkVersion === undefined) return null;
  const base = { path: parts.route, timestamp: parts.timestamp, securityCode: parts.securityCode, nonce: parts.nonce, sdkVersion: parts.sdkVersion };
  if (secretsEqual(requestSignature({ ...base, body: '' }), sent)) return 'empty-body';
  if (secretsEqual(requestSignature({ ...base, body: '{}' }), sent)) return 'empty-object';
  return null;
}

/**
 * Signature variants over the body bytes (the Node SDK signs `JSON.stringify(data)` of what it was
 * given, while the wire carries the data itself):
 * - `raw-body`: the body text as received (the standard formula, §2.6 item 3);
 * - `quoted-body`: the JSON string of the body text (`"hello"`: a Node string);
 * - `buffer-json`: `{"type":"Buffer","data":[…]}` of the bytes (a Node `Buffer`).
 * Computed incrementally: the Buffer form of a 10 MiB body is never built as one string.
 */
export function bodySignatureVariant(parts: UploadSignatureParts, signature: string, body: Uint8Array): 'raw-body' | 'quoted-body' | 'buffer-json' | null {
  if (parts.sdkVersion === undefined) return null;
  const sent = signature.toLowerCase();
  const head = parts.route + parts.timestamp + parts.securityCode + parts.nonce;
  const text = new TextDecoder('utf-8').decode(body);
  const digest = (...pieces: Array<string | Uint8Array>) => {
    const hash = createHash('md5');
    for (const piece of pieces) hash.update(piece);
    return hash.digest('hex');
  };
  if (secretsEqual(digest(head, body, parts.sdkVersion), sent)) return 'raw-body';
  if (secretsEqual(digest(head, JSON.stringify(text), parts.sdkVersion), sent)) return 'quoted-body';
  const hash = createHash('md5').update(head).update('{"type":"Buffer","data":[');
  const STEP = 64 * 1024;
  for (let i = 0; i < body.length; i += STEP) {
    const slice = body.subarray(i, Math.min(body.length, i + STEP));
    hash.update((i > 0 ? ',' : '') + Array.prototype.join.call(slice, ','));
  }
  if (secretsEqual(hash.update(']}').update(parts.sdkVersion).digest('hex'), sent)) return 'buffer-json';
  return null;
}
