import type { Application } from '../app/application.js';
import type { AppRegistry } from '../app/registry.js';
import type { Clock } from '../core/clock.js';
import { svcError } from '../core/errors.js';
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

/** The session token of a request's credentials; null when absent or one of the SDK's "nobody" literals. */
export function sessionTokenOf(creds: CredentialHeaders): string | null {
  return creds.sessionToken && !ANONYMOUS_TOKENS.has(creds.sessionToken) ? creds.sessionToken : null;
}

/**
 * Authenticates a request for a route. Modes, in order: master key (alone or with an application id),
 * application id + REST key, signed headers (secret key + signature). Every key comparison is
 * timing-safe. `signedPath`/`rawBodyText` are the signature inputs (path after the mount prefix).
 * `auth: 'upload'` routes go through `authenticateUpload` (upload-auth.ts) instead: their signature
 * variants need the body.
 */
export async function authenticate(
  request: SvcRequest,
  routeAuth: RouteAuth,
  params: Readonly<Record<string, string>>,
  rawBodyText: () => string,
  options: AuthOptions,
  routePath = '',
  signedHeads: readonly string[] = [],
  bearerToken?: string,
): Promise<Authenticated | null> {
  switch (routeAuth) {
    case 'none':
      return null;
    case 'bearer':
      return bearer(request, bearerToken);
    case 'upload':
      throw new Error('[svcbase] [http] an upload route authenticates through authenticateUpload');
    case 'function-path':
      return functionPath(request, params, routePath, options);
    case 'captcha-link':
      return captchaLink(request, options);
    default:
      break;
  }
  const creds = readCredentials(request.headers, options.headerNames);
  const sessionToken = sessionTokenOf(creds);

  if (routeAuth === 'secret-path') {
    const app = params.secretKey ? options.apps.bySecretKey(params.secretKey) : undefined;
    if (!app) throw new AuthFailure('unknown secret key in path');
    return { app, auth: { mode: 'secret-path', isMaster: false, sessionToken } };
  }

  const authed = keyAuthentication(creds, options) ?? (creds.secretKey !== undefined ? await signed(request, creds, rawBodyText, options, sessionToken, signedHeads) : undefined);
  if (!authed) throw new AuthFailure('no credentials');
  // Valid credentials without the master key on a master-only route: the one coded refusal every
  // master-only operation answers (403 / 11006), as push and refund do; wrong keys stay 401.
  if (routeAuth === 'master' && !authed.auth.isMaster) throw svcError('masterKeyRequired');
  return authed;
}

/** An operator's token route: the exact `Bearer <token>`, compared in constant time; no application. */
function bearer(request: SvcRequest, token: string | undefined): null {
  const header = request.headers.authorization;
  if (token === undefined || token === '') throw new Error('[svcbase] [http] a bearer route without its token');
  if (typeof header !== 'string' || !header.startsWith('Bearer ') || !secretsEqual(header.slice(7).trim(), token)) throw new AuthFailure('no bearer token');
  return null;
}

async function signed(request: SvcRequest, creds: CredentialHeaders, rawBodyText: () => string, options: AuthOptions, sessionToken: string | null, signedHeads: readonly string[]): Promise<Authenticated> {
  const app = await verifySigned(request, creds, rawBodyText, options, signedHeads);
  return { app, auth: { mode: 'signed', isMaster: false, sessionToken } };
}

/**
 * The key modes: the master key (alone or with an application id), then application id + REST key.
 * Undefined when the credentials carry neither a master key nor an application id; throws on a wrong
 * key. A master-only route refuses what this accepts without the master key with 403 / 11006.
 */
export function keyAuthentication(creds: CredentialHeaders, options: Pick<AuthOptions, 'apps'>): Authenticated | undefined {
  const sessionToken = sessionTokenOf(creds);
  const master = creds.masterKey ? masterApp(creds, options) : undefined;
  if (master) return { app: master, auth: { mode: 'master', isMaster: true, sessionToken } };
  if (creds.applicationId === undefined) return undefined;
  const app = options.apps.byId.get(creds.applicationId);
  if (!app) throw new AuthFailure('unknown application id');
  if (creds.restApiKey === undefined || !options.apps.restKeyMatches(app, creds.restApiKey)) {
    throw new AuthFailure('missing or wrong REST API key');
  }
  return { app, auth: { mode: 'rest', isMaster: false, sessionToken } };
}

/**
 * The plain-HTTP function form: the `:secretKey` path segment is the only credential (no header is
 * read, so the caller has no session token). An unknown key answers 404/11001, as an unknown route
 * does, so the paths do not reveal which keys exist.
 */
function functionPath(request: SvcRequest, params: Readonly<Record<string, string>>, routePath: string, options: AuthOptions): Authenticated {
  const app = options.apps.bySecretKey(params.secretKey ?? '');
  if (!app) {
    const at = routePath.indexOf('/:secretKey');
    throw svcError('routeNotFound', request.method, `${at < 0 ? '' : routePath.slice(0, at)}/…`);
  }
  return { app, auth: { mode: 'secret-path', isMaster: false, sessionToken: null } };
}

/**
 * A captcha image link: the `secretKey` query parameter names the application (one without a secret
 * key is named by `applicationId`). The link is the credential; an unknown key answers 400/11010, as
 * an unknown token does, so the route does not reveal which keys exist.
 */
function captchaLink(request: SvcRequest, options: AuthOptions): Authenticated {
  const query = new URLSearchParams(request.search);
  const secretKey = query.get('secretKey');
  let app: Application | undefined;
  if (secretKey !== null) app = options.apps.bySecretKey(secretKey);
  else {
    const applicationId = query.get('applicationId');
    const named = applicationId === null ? undefined : options.apps.byId.get(applicationId);
    app = named && named.secretKey === undefined ? named : undefined;
  }
  if (!app) throw svcError('captchaTokenInvalid');
  return { app, auth: { mode: 'secret-path', isMaster: false, sessionToken: null } };
}

function masterApp(creds: CredentialHeaders, options: Pick<AuthOptions, 'apps'>): Application | undefined {
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

/** How long a signature that does not cover its timestamp (RouteDef.signedHeads) is remembered as used. */
const UNSIGNED_TIME_REPLAY_MS = 24 * 60 * 60 * 1000;

async function verifySigned(
  request: SvcRequest,
  creds: CredentialHeaders,
  rawBodyText: () => string,
  options: AuthOptions,
  signedHeads: readonly string[],
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
  const body = isSignedBodyMethod(request.method) ? rawBodyText() : '';
  const sign = (head: string, time: string) => requestSignature({ path: head, timestamp: time, securityCode: app.securityCode!, nonce, body, sdkVersion });
  const given = signature.toLowerCase();
  const expected = sign(path, timestamp);
  if (secretsEqual(expected, given)) {
    // An identical (timestamp, nonce, signature) triple inside the window is a replay.
    const replayKey = `sig:${app.applicationId}:${timestamp}:${nonce}:${expected}`;
    if (!(await options.kv.putIfAbsent(replayKey, '1', sentAt + options.signatureSkewMs * 2 + 1000, now))) throw new AuthFailure('replayed signature');
    return app;
  }
  // A text the route says a client signs in place of `path + timestamp` (RouteDef.signedHeads). The
  // timestamp is then not signed, so the (nonce, signature) pair is remembered for a day, whatever
  // timestamp comes with it.
  const head = signedHeads.find((text) => secretsEqual(sign(text, ''), given));
  if (head === undefined) throw new AuthFailure('signature mismatch');
  const replayKey = `sig:${app.applicationId}:head:${nonce}:${given}`;
  if (!(await options.kv.putIfAbsent(replayKey, '1', now + UNSIGNED_TIME_REPLAY_MS, now))) throw new AuthFailure('replayed signature');
  return app;
}
