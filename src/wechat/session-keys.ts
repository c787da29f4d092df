import { createHash, timingSafeEqual } from 'node:crypto';
import type { Application } from '../app/application.js';
import type { Clock } from '../core/clock.js';
import type { KvStore } from '../kv/port.js';
import { svcError } from '../core/errors.js';
import type { PlatformClient } from './platform-client.js';
import type { PlatformAccount } from './wechat-settings.js';

/**
 * Session keys the platform handed out through `wechatAppv1`, remembered per application and openid
 * as a SHA-256 hash (never the key itself), so `authData.weapp {openid, sk}` can be checked without
 * another platform call. Shared across instances through the KvStore.
 */
export interface SessionKeyLedger {
  remember(app: Application, openid: string, sessionKey: string, ttlSeconds: number, unionid?: string): Promise<void>;
  /**
   * When `sessionKey` is the last one the platform gave for `openid` (and not expired): what the
   * platform said with it (its unionid); else null.
   */
  match(app: Application, openid: string, sessionKey: string): Promise<{ readonly unionid?: string } | null>;
}

const digest = (value: string) => createHash('sha256').update(value).digest();

export function createSessionKeyLedger(deps: { readonly kv: KvStore; readonly clock: Clock }): SessionKeyLedger {
  const key = (app: Application, openid: string) => `wechat:sk:${app.applicationId}:${digest(openid).toString('hex')}`;
  return {
    async remember(app, openid, sessionKey, ttlSeconds, unionid) {
      const entry = { h: digest(sessionKey).toString('hex'), ...(unionid ? { u: unionid } : {}) };
      await deps.kv.put(key(app, openid), JSON.stringify(entry), deps.clock.now() + ttlSeconds * 1000);
    },
    async match(app, openid, sessionKey) {
      const stored = await deps.kv.get(key(app, openid), deps.clock.now());
      if (stored === null) return null;
      const entry = JSON.parse(stored) as { h: string; u?: string };
      if (!timingSafeEqual(Buffer.from(entry.h, 'hex'), digest(sessionKey))) return null;
      return entry.u ? { unionid: entry.u } : {};
    },
  };
}

/**
 * Proves that `sessionKey` is the one the platform issued for `openid`: the ledger answers first,
 * else the platform's `checksession` (a confirmed key is then remembered). 208 otherwise. Answers
 * what the platform said with the key (its unionid), when the ledger knows it.
 */
export async function proveSessionKey(
  deps: { readonly sessionKeys: SessionKeyLedger; readonly platform: PlatformClient },
  app: Application,
  account: PlatformAccount,
  ttlSeconds: number,
  openid: string,
  sessionKey: string,
): Promise<{ readonly unionid?: string }> {
  const known = await deps.sessionKeys.match(app, openid, sessionKey);
  if (known) return known;
  const answer = await deps.platform.checkSessionKey(account, openid, sessionKey);
  if (answer.errcode !== 0) throw svcError('authDataInvalid', 'the session key does not belong to this openid');
  await deps.sessionKeys.remember(app, openid, sessionKey, ttlSeconds);
  return {};
}
