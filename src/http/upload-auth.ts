import type { Application } from '../app/application.js';
import { type AuthOptions, type Authenticated, AuthFailure, keyAuthentication, sessionTokenOf } from './auth.js';
import { readLimited } from './body-stream.js';
import { type BrandHeaderNames, type CredentialHeaders, readCredentials } from './credentials.js';
import { timestampMs } from './signature.js';
import type { SvcRequest } from './types.js';
import { type UploadSignatureParts, bodySignatureVariant, headSignatureVariant } from './upload-signature.js';
import { merged } from '../core/copy.js';

/** A signed upload whose signature is none of the head variants: it may cover the body bytes. */
interface PendingBodySignature {
  readonly app: Application;
  readonly parts: UploadSignatureParts;
  readonly signature: string;
  readonly sessionToken: string | null;
}

/** What `auth: 'upload'` hands the request handler. */
export interface UploadAuthentication {
  /** The caller's application and credential when the request's headers carried them; null when a multipart form carries them. */
  readonly authed: Authenticated | null;
  /** The body to hand the route: the bytes buffered for a signature over them, else the stream as it came. */
  readonly body: AsyncIterable<Uint8Array>;
  /** Multipart without credentials in the headers: authenticates a form's fields (merged over the headers'), once. */
  readonly fromFields: ((fields: ReadonlyMap<string, string>) => Promise<Authenticated>) | undefined;
}

/** `multipart/form-data` with its boundary parameter. */
function isMultipartType(contentType: string | undefined): boolean {
  return contentType !== undefined && /^multipart\/form-data\s*;/i.test(contentType);
}

/** Credential fields of a multipart form (the mini-program and quick-app SDKs repeat the headers as fields). */
function formCredentials(fields: ReadonlyMap<string, string>, names: BrandHeaderNames): CredentialHeaders {
  const lower: Record<string, string> = {};
  for (const [name, value] of fields) lower[name.toLowerCase()] = value;
  return readCredentials(lower, names);
}

/**
 * Authenticates an upload (`auth: 'upload'` routes: `POST /2/files/:name`, `POST /1/wechatApp/checkImg/:name`)
 * before any byte of it is stored. `signedRoute` is the route's path with its parameters decoded (what
 * the SDKs sign); `signedBodyLimit` the largest raw body buffered to check a signature over its bytes
 * (undefined: body variants are refused). In order:
 * - headers with a master key, application id + REST key or a secret key: checked now; a multipart
 *   body then never matches a body variant (only head variants count);
 * - a multipart body without them: its form fields carry them (quick apps), checked by `fromFields`
 *   when the route has read the fields that come before the first file part;
 * - a raw body whose signature is none of the head variants: buffered within `signedBodyLimit` and
 *   checked against the body variants (sdk-wire §2.6, D71).
 */
export async function authenticateUpload(
  request: SvcRequest,
  signedRoute: string,
  body: AsyncIterable<Uint8Array>,
  signedBodyLimit: number | undefined,
  options: AuthOptions,
): Promise<UploadAuthentication> {
  const headerCreds = readCredentials(request.headers, options.headerNames);
  if (isMultipartType(request.headers['content-type'])) {
    if (headerCreds.masterKey ?? headerCreds.applicationId ?? headerCreds.secretKey) {
      return { authed: await headOnly(signedRoute, headerCreds, options), body, fromFields: undefined };
    }
    let fromForm: Promise<Authenticated> | undefined;
    const fromFields = (fields: ReadonlyMap<string, string>) =>
      (fromForm ??= headOnly(signedRoute, merged(headerCreds, formCredentials(fields, options.headerNames)), options));
    return { authed: null, body, fromFields };
  }
  const head = await headAuthentication(signedRoute, headerCreds, options);
  if (!isPending(head)) return { authed: head, body, fromFields: undefined };
  if (signedBodyLimit === undefined) throw new AuthFailure('signature mismatch');
  // The signature may cover the bytes (Node SDK strings and Buffers): buffer, check, then hand them on.
  const bytes = (await readLimited(body, signedBodyLimit)) ?? new Uint8Array(0);
  if (!bodySignatureVariant(head.parts, head.signature, bytes)) throw new AuthFailure('signature mismatch');
  return { authed: { app: head.app, auth: { mode: 'signed', isMaster: false, sessionToken: head.sessionToken } }, body: once(bytes), fromFields: undefined };
}

async function* once(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  yield bytes;
}

/** A multipart body is never what a standard signature covers: only head variants count. */
async function headOnly(signedRoute: string, creds: CredentialHeaders, options: AuthOptions): Promise<Authenticated> {
  const result = await headAuthentication(signedRoute, creds, options);
  if (isPending(result)) throw new AuthFailure('signature mismatch');
  return result;
}

/**
 * An upload's head (headers or form fields). Master key and application id + REST key are checked as
 * on every route. Signed uploads are checked against the head variants of sdk-wire §2.6 (standard over
 * an empty body or `{}`, legacy without body or version); a legacy signature verified once for an
 * application is accepted again within the skew window, because a mini-program batch reuses the first
 * file's signature for every file. Nonces are not single-use on uploads (§2.6 item 6). Returns the
 * identity, or a pending check when only the body variants remain; throws AuthFailure otherwise.
 */
async function headAuthentication(signedRoute: string, creds: CredentialHeaders, options: AuthOptions): Promise<Authenticated | PendingBodySignature> {
  const keyed = keyAuthentication(creds, options);
  if (keyed) return keyed;
  if (creds.secretKey === undefined) throw new AuthFailure('no credentials');
  const app = options.apps.bySecretKey(creds.secretKey);
  if (!app || app.securityCode === undefined) throw new AuthFailure('unknown secret key');
  const { timestamp, nonce, signature } = creds;
  if (!timestamp || !nonce || !signature) throw new AuthFailure('incomplete signature fields');
  const sentAt = timestampMs(timestamp);
  if (sentAt === null) throw new AuthFailure('malformed timestamp');
  const now = options.clock.now();
  if (Math.abs(now - sentAt) > options.signatureSkewMs) throw new AuthFailure('timestamp outside the accepted skew');
  const sessionToken = sessionTokenOf(creds);
  const identity: Authenticated = { app, auth: { mode: 'signed', isMaster: false, sessionToken } };
  const parts: UploadSignatureParts = { route: signedRoute, timestamp, securityCode: app.securityCode, nonce, sdkVersion: creds.sdkVersion };
  const batchKey = `files:sig:${app.applicationId}:${timestamp}:${nonce}:${signature.toLowerCase()}`;
  const variant = headSignatureVariant(parts, signature);
  if (variant === 'legacy') {
    await options.kv.put(batchKey, '1', sentAt + options.signatureSkewMs + 1000);
    return identity;
  }
  if (variant) return identity;
  if ((await options.kv.get(batchKey, now)) !== null) return identity;
  return { app, parts, signature, sessionToken };
}

function isPending(result: Authenticated | PendingBodySignature): result is PendingBodySignature {
  return 'parts' in result;
}
