import { createHash, timingSafeEqual } from 'node:crypto';
import type { Application } from '../app/application.js';
import type { Clock } from '../core/clock.js';
import type { KvStore } from '../kv/port.js';

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
