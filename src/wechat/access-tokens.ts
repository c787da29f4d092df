import { createHash } from 'node:crypto';
import type { Clock } from '../core/clock.js';
import { svcError } from '../core/errors.js';
import type { KvStore } from '../kv/port.js';
import { callPlatform, errcodeOf, platformFailure } from './platform-http.js';
import type { PlatformAccount } from './wechat-settings.js';

/** Error codes of a token the platform no longer accepts: invalid (40001, 40014) or expired (42001). */
export const STALE_TOKEN_CODES: ReadonlySet<number> = new Set([40001, 40014, 42001]);

/** Tokens are renewed this long before the platform says they expire. */
const RENEW_MARGIN_MS = 5 * 60_000;

/** Access tokens of platform accounts. */
export interface AccessTokens {
  /** A live token of the account. */
  get(account: PlatformAccount): Promise<string>;
  /**
   * Called after the platform refused `used` as stale: a token other than `used` (one another
   * instance fetched meanwhile, or a forced refresh).
   */
  renew(account: PlatformAccount, used: string): Promise<string>;
}

interface CachedToken {
  readonly token: string;
  readonly expiresAt: number;
}

/**
 * Access tokens through the platform's stable-token endpoint, cached per appid in the KvStore so every
 * instance shares them, with one fetch in flight per appid and instance. The stable-token endpoint
 * hands concurrent callers the same token without revoking it, so instances refreshing at once do not
 * invalidate each other; only a refused token forces a refresh (`force_refresh: true`).
 */
export function createAccessTokens(deps: { readonly kv: KvStore; readonly clock: Clock; readonly fetch?: typeof fetch }): AccessTokens {
  const inFlight = new Map<string, Promise<string>>();
  // The secret (hashed) is part of the key: naming a mini program's appid with the wrong secret (a
  // Java function's initWechatApp) must not reach the token cached for whoever knows the right one.
  const key = (account: PlatformAccount) => `wechat:token:${account.appId}:${createHash('sha256').update(`${account.secret}\u0000${account.apiBase}`).digest('hex').slice(0, 24)}`;

  const cached = async (account: PlatformAccount): Promise<CachedToken | null> => {
    const now = deps.clock.now();
    const raw = await deps.kv.get(key(account), now);
    if (!raw) return null;
    const entry = JSON.parse(raw) as CachedToken;
    return entry.expiresAt - RENEW_MARGIN_MS > now ? entry : null;
  };

  const fetchToken = async (account: PlatformAccount, force: boolean): Promise<string> => {
    const reply = await callPlatform(
      {
        method: 'POST',
        url: `${account.apiBase}/cgi-bin/stable_token`,
        json: { grant_type: 'client_credential', appid: account.appId, secret: account.secret, ...(force ? { force_refresh: true } : {}) },
        timeoutMs: account.timeoutMs,
      },
      deps.fetch,
    );
    if (reply.kind !== 'json') throw svcError('platformUnavailable', 'stable_token answered bytes');
    if (errcodeOf(reply.body) !== 0) throw platformFailure(reply.body);
    const { access_token: token, expires_in: expiresIn } = reply.body;
    if (typeof token !== 'string' || typeof expiresIn !== 'number') throw svcError('platformUnavailable', 'stable_token answered no token');
    const now = deps.clock.now();
    const expiresAt = now + expiresIn * 1000;
    await deps.kv.put(key(account), JSON.stringify({ token, expiresAt }), expiresAt);
    return token;
  };

  const singleFlight = (account: PlatformAccount, force: boolean): Promise<string> => {
    const flightKey = `${key(account)}:${force}`;
    let pending = inFlight.get(flightKey);
    if (!pending) {
      pending = fetchToken(account, force).finally(() => inFlight.delete(flightKey));
      inFlight.set(flightKey, pending);
    }
    return pending;
  };

  return {
    async get(account) {
      return (await cached(account))?.token ?? singleFlight(account, false);
    },
    async renew(account, used) {
      const current = await cached(account);
      if (current && current.token !== used) return current.token;
      return singleFlight(account, true);
    },
  };
}
