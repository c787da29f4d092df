import type { Application } from '../app/application.js';
import type { AppRegistry } from '../app/registry.js';
import type { Clock } from '../core/clock.js';
import type { KvStore } from '../kv/port.js';
import { AuthFailure, authenticate } from '../http/auth.js';
import { type BrandHeaderNames, type CredentialHeaders, readCredentials } from '../http/credentials.js';
import { timestampMs } from '../http/signature.js';
import type { AuthContext } from '../http/types.js';
import { type UploadSignatureParts, bodySignatureVariant, headSignatureVariant } from './upload-route-signature.js';

export interface UploadAuthOptions {
  readonly apps: AppRegistry;
  readonly headerNames: BrandHeaderNames;
  readonly clock: Clock;
  readonly kv: KvStore;
  readonly signatureSkewMs: number;
}

export interface UploadIdentity {
  readonly app: Application;
  readonly auth: AuthContext;
}

/** A signed upload whose signature is none of the head variants: it may cover the body bytes. */
export interface PendingBodySignature {
  readonly app: Application;
  readonly parts: UploadSignatureParts;
  readonly signature: string;
  readonly sessionToken: string | null;
}

const ANONYMOUS = new Set(['bmob', 'undefined', 'null']);

/** Credential fields of a multipart form (the mini-program and quick-app SDKs repeat the headers as fields). */
export function formCredentials(fields: ReadonlyMap<string, string>, names: BrandHeaderNames): CredentialHeaders {
  const lower: Record<string, string> = {};
  for (const [name, value] of fields) lower[name.toLowerCase()] = value;
  return readCredentials(lower, names);
}

/**
 * Authenticates an upload from its head (headers or form fields), before any byte is stored.
 * Master key and application id + REST key go through the service's own `authenticate`. Signed
 * uploads are checked against the head variants of sdk-wire §2.6 (standard over an empty body or
 * `{}`, legacy without body or version); a legacy signature verified once for an application is
 * accepted again within the skew window, because a mini-program batch reuses the first file's
 * signature for every file. Nonces are not single-use on uploads (§2.6 item 6). Returns the
 * identity, or a pending check when only the body variants remain; throws AuthFailure otherwise.
 */
export async function authenticateUploadHead(
  route: string,
  headers: Readonly<Record<string, string | undefined>>,
  creds: CredentialHeaders,
  options: UploadAuthOptions,
): Promise<UploadIdentity | PendingBodySignature> {
  if (creds.masterKey !== undefined || creds.applicationId !== undefined) {
    const authed = await authenticate({ method: 'POST', path: route, search: '', headers, body: null }, 'app', {}, () => '', options);
    if (!authed) throw new AuthFailure('no credentials');
    return authed;
  }
  if (creds.secretKey === undefined) throw new AuthFailure('no credentials');
  const app = options.apps.bySecretKey(creds.secretKey);
  if (!app || app.securityCode === undefined) throw new AuthFailure('unknown secret key');
  const { timestamp, nonce, signature } = creds;
  if (!timestamp || !nonce || !signature) throw new AuthFailure('incomplete signature fields');
  const sentAt = timestampMs(timestamp);
  if (sentAt === null) throw new AuthFailure('malformed timestamp');
  const now = options.clock.now();
  if (Math.abs(now - sentAt) > options.signatureSkewMs) throw new AuthFailure('timestamp outside the accepted skew');
  const sessionToken = creds.sessionToken && !ANONYMOUS.has(creds.sessionToken) ? creds.sessionToken : null;
  const identity: UploadIdentity = { app, auth: { mode: 'signed', isMaster: false, sessionToken } };
  const parts: UploadSignatureParts = { route, timestamp, securityCode: app.securityCode, nonce, sdkVersion: creds.sdkVersion };
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

/** Finishes a pending check over the buffered body; throws AuthFailure when no body variant matches. */
export function authenticateUploadBody(pending: PendingBodySignature, body: Uint8Array): UploadIdentity {
  if (!bodySignatureVariant(pending.parts, pending.signature, body)) throw new AuthFailure('signature mismatch');
  return { app: pending.app, auth: { mode: 'signed', isMaster: false, sessionToken: pending.sessionToken } };
}

export function isPending(result: UploadIdentity | PendingBodySignature): result is PendingBodySignature {
  return 'parts' in result;
}
