import type { Application } from '../app/application.js';
import type { AppRegistry } from '../app/registry.js';
import type { Clock } from '../core/clock.js';
import { secretsEqual } from '../core/secrets.js';
import type { KvStore } from '../kv/port.js';
import { type BrandHeaderNames, type CredentialHeaders, readCredentials } from './credentials.js';
import { decodeSignedPath, isSignedBodyMethod, requestSignature, timestampMs } from './signature.js';
import type { AuthContext, RouteAuth, SvcRequest } from './types.js';

/** Authentication failed; answered as 401 `{"error":"unauthorized"}`. `reason` goes to the log only. */
export class AuthFailure extends Error {
  constructor(readonly reason: string) {
    super(`unauthorized: ${reason}`);
  }
}

export interface AuthOptions {
  readonly apps: AppRegistry;
  readonly headerNames: BrandHeaderNames;
  readonly clock: Clock;
  /** Nonce replay guard store. */
  readonly kv: KvStore;
  /** Accepted clock skew of signed requests, ms (default 10 s, as documented by the hosted service). */
  readonly signatureSkewMs: number;
}

export interface Authenticated {
  readonly app: Application;
  readonly auth: AuthContext;
}

/** Session tokens that mean "nobody": the SDK sends these literals when no user is logged in. */
const ANONYMOUS_TOKENS = new Set(['bmob', 'undefined', 'null']);

/**
 * Authenticates a request for a route. Modes, in order: master key (alone or with an application id),
 * application id + REST key, signed headers (secret key + signature). Every key comparison is
 * timing-safe. `signedPath`/`rawBodyText` are the signature inputs (path after the mount prefix).
 */
export async function authenticate(
  request: SvcRequest,
  routeAuth: RouteAuth,
  params: Readonly<Record<string, string>>,
  rawBodyText: () => string,
  options: AuthOptions,
): Promise<Authenticated | null> {
  if (routeAuth === 'none') return null;
  const creds = readCredentials(request.headers, options.headerNames);
  const sessionToken = creds.sessionToken && !ANONYMOUS_TOKENS.has(creds.sessionToken) ? creds.sessionToken : null;

  if (routeAuth === 'secret-path') {
    const app = params.secretKey ? options.apps.bySecretKey(params.secretKey) : undefined;
    if (!app) throw new AuthFailure('unknown secret key in path');
    return { app, auth: { mode: 'secret-path', isMaster: false, sessionToken } };
  }

  const master = creds.masterKey ? masterApp(creds, options) : undefined;
  if (master) return { app: master, auth: { mode: 'master', isMaster: true, sessionToken } };
  if (routeAuth === 'master') throw new AuthFailure('master key required');

  if (creds.applicationId !== undefined) {
    const app = options.apps.byId.get(creds.applicationId);
    if (!app) throw new AuthFailure('unknown application id');
    if (creds.restApiKey === undefined || !options.apps.restKeyMatches(app, creds.restApiKey)) {
      throw new AuthFailure('missing or wrong REST API key');
    }
    return { app, auth: { mode: 'rest', isMaster: false, sessionToken } };
  }

  if (creds.secretKey !== undefined) {
    const app = await verifySigned(request, creds, rawBodyText, options);
    return { app, auth: { mode: 'signed', isMaster: false, sessionToken } };
  }
  throw new AuthFailure('no credentials');
}

function masterApp(creds: CredentialHeaders, options: AuthOptions): Application | undefined {
  const masterKey = creds.masterKey!;
  if (creds.applicationId !== undefined) {
    const app = options.apps.byId.get(creds.applicationId);
    if (!app) throw new AuthFailure('unknown application id');
    if (!options.apps.masterKeyMatches(app, masterKey)) throw new AuthFailure('wrong master key');
    return app;
  }
  const app = options.apps.byMasterKey(masterKey);
  if (!app) throw new AuthFailure('wrong master key');
  return app;
}

async function verifySigned(
  request: SvcRequest,
  creds: CredentialHeaders,
  rawBodyText: () => string,
  options: AuthOptions,
): Promise<Application> {
  const app = options.apps.bySecretKey(creds.secretKey!);
  if (!app || app.securityCode === undefined) throw new AuthFailure('unknown secret key');
  const { timestamp, nonce, signature, sdkVersion } = creds;
  if (!timestamp || !nonce || !signature || sdkVersion === undefined) throw new AuthFailure('incomplete signature headers');
  const sentAt = timestampMs(timestamp);
  if (sentAt === null) throw new AuthFailure('malformed timestamp');
  const now = options.clock.now();
  if (Math.abs(now - sentAt) > options.signatureSkewMs) throw new AuthFailure('timestamp outside the accepted skew');
  const path = decodeSignedPath(request.path);
  if (path === null) throw new AuthFailure('malformed path encoding');
  const expected = requestSignature({
    path,
    timestamp,
    securityCode: app.securityCode,
    nonce,
    body: isSignedBodyMethod(request.method) ? rawBodyText() : '',
    sdkVersion,
  });
  if (!secretsEqual(expected, signature.toLowerCase())) throw new AuthFailure('signature mismatch');
  // An identical (timestamp, nonce, signature) triple inside the window is a replay.
  const replayKey = `sig:${app.applicationId}:${timestamp}:${nonce}:${expected}`;
  const fresh = await options.kv.putIfAbsent(replayKey, '1', sentAt + options.signatureSkewMs * 2 + 1000, now);
  if (!fresh) throw new AuthFailure('replayed signature');
  return app;
}
