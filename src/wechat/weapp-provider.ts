import type { Application } from '../app/application.js';
import { svcError } from '../core/errors.js';
import type { JsonObject } from '../core/wire-values.js';
import type { AuthProvider, VerifiedIdentity } from '../users/index.js';
import type { PlatformClient } from './platform-client.js';
import { type SessionKeyLedger, proveSessionKey } from './session-keys.js';
import type { WechatSettings } from './wechat-settings.js';

/**
 * `authData.weapp`: `{openid, sk}` (the SDK's shape, the reply of `wechatAppv1`) or `{openid,
 * session_key}` (the REST documentation's). The session key must be the one the platform gave for
 * that openid: the ledger of keys `wechatAppv1` handed out answers first, else the platform's own
 * `checksession`. An openid alone proves nothing and is refused (208).
 */
export function weappAuthProvider(deps: {
  readonly settings: (app: Application) => WechatSettings;
  readonly platform: PlatformClient;
  readonly sessionKeys: SessionKeyLedger;
}): AuthProvider {
  return {
    async verify(app: Application, data: JsonObject): Promise<VerifiedIdentity> {
      const openid = data.openid;
      const sessionKey = data.sk ?? data.session_key;
      if (typeof openid !== 'string' || openid === '' || openid.length > 128) throw svcError('authDataInvalid', 'authData.weapp needs openid');
      if (typeof sessionKey !== 'string' || sessionKey === '' || sessionKey.length > 256) throw svcError('authDataInvalid', 'authData.weapp needs sk (the session key)');
      const settings = deps.settings(app);
      if (!settings.miniProgram) throw svcError('platformNotConfigured', 'miniProgram');
      const known = await proveSessionKey(deps, app, settings.miniProgram, settings.sessionKeyTtlSeconds, openid, sessionKey);
      // Only what the platform said is kept: a unionid the client sends is not proof.
      const stored: JsonObject = known.unionid ? { openid, unionid: known.unionid } : { openid };
      return { id: openid, stored, reply: { sk: sessionKey } };
    },
  };
}
