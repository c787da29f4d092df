import { createSign } from 'node:crypto';
import type { Clock } from '../core/clock.js';
import { systemClock } from '../core/clock.js';
import { configError } from '../core/errors.js';
import { type PushOutcome, type PushTarget, type PushTransport, readErrorText } from './push-transport.js';

/** The fields of a Google service-account key file that FCM needs. */
export interface FcmServiceAccount {
  readonly project_id: string;
  readonly client_email: string;
  readonly private_key: string;
  /** Default `https://oauth2.googleapis.com/token`. */
  readonly token_uri?: string;
}

export interface FcmOptions {
  readonly serviceAccount: FcmServiceAccount;
  /** Default `https://fcm.googleapis.com`. */
  readonly apiBaseUrl?: string;
  /** Per request, in ms (default 10 000). */
  readonly timeoutMs?: number;
  readonly clock?: Clock;
  readonly fetch?: typeof fetch;
}

const SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';
const base64url = (value: string | Buffer) => Buffer.from(value).toString('base64url');

/** FCM's `data` values are strings: other JSON values are sent as their JSON text. */
function fcmData(data: Readonly<Record<string, unknown>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(data)) out[key] = typeof value === 'string' ? value : JSON.stringify(value);
  return out;
}

/**
 * Firebase Cloud Messaging HTTP v1: the service account signs a JWT (RS256) exchanged for an OAuth
 * access token, cached until a minute before it expires (one exchange in flight at a time, again at
 * once after a 401); each message is one `POST /v1/projects/<project>/messages:send`. An
 * `UNREGISTERED` token (404), or a 400 naming the registration token, is `invalid`.
 */
export function fcmTransport(options: FcmOptions): PushTransport {
  const account = options.serviceAccount;
  if (!account?.project_id || !account.client_email || !account.private_key) throw configError('push', 'fcm: the service account needs project_id, client_email and private_key');
  const clock = options.clock ?? systemClock;
  const fetchImpl = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const tokenUri = account.token_uri ?? 'https://oauth2.googleapis.com/token';
  const sendUrl = `${(options.apiBaseUrl ?? 'https://fcm.googleapis.com').replace(/\/+$/, '')}/v1/projects/${encodeURIComponent(account.project_id)}/messages:send`;
  let cached: { token: string; expiresAt: number } | null = null;
  let pending: Promise<string> | null = null;

  const exchange = async (): Promise<string> => {
    const now = Math.floor(clock.now() / 1000);
    const unsigned = `${base64url(JSON.stringify({ alg: 'RS256', typ: 'JWT' }))}.${base64url(JSON.stringify({ iss: account.client_email, scope: SCOPE, aud: tokenUri, iat: now, exp: now + 3600 }))}`;
    const signature = createSign('RSA-SHA256').update(unsigned).sign(account.private_key);
    const response = await fetchImpl(tokenUri, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: `${unsigned}.${base64url(signature)}` }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!response.ok) throw new Error(`token exchange: HTTP ${response.status} ${await readErrorText(response, 200)}`);
    const body = (await response.json()) as { access_token?: unknown; expires_in?: unknown };
    if (typeof body.access_token !== 'string') throw new Error('token exchange: no access_token');
    const lifetime = typeof body.expires_in === 'number' ? body.expires_in : 3600;
    cached = { token: body.access_token, expiresAt: clock.now() + Math.max(0, lifetime - 60) * 1000 };
    return body.access_token;
  };
  const accessToken = (): Promise<string> => {
    if (cached && cached.expiresAt > clock.now()) return Promise.resolve(cached.token);
    pending ??= exchange().finally(() => (pending = null));
    return pending;
  };

  const post = async (token: string, target: string, data: Readonly<Record<string, unknown>>) =>
    fetchImpl(sendUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ message: { token: target, data: fcmData(data) } }),
      signal: AbortSignal.timeout(timeoutMs),
    });

  return {
    kind: 'fcm',
    async send(target: PushTarget, data): Promise<PushOutcome> {
      if (target.kind !== 'fcm') return { outcome: 'failed', reason: 'not an FCM token' };
      try {
        let response = await post(await accessToken(), target.token, data);
        if (response.status === 401) {
          await response.body?.cancel();
          cached = null;
          response = await post(await accessToken(), target.token, data);
        }
        if (response.ok) {
          await response.body?.cancel();
          return { outcome: 'sent' };
        }
        const text = await readErrorText(response);
        const gone = response.status === 404 || (response.status === 400 && /UNREGISTERED|registration token/i.test(text));
        return { outcome: gone ? 'invalid' : 'failed', reason: `HTTP ${response.status} ${text.slice(0, 200)}`.trim() };
      } catch (error) {
        return { outcome: 'failed', reason: error instanceof Error ? error.message.slice(0, 200) : 'request failed' };
      }
    },
  };
}
