import type { Application } from '../app/application.js';
import { type Caller, internalCaller } from '../app/caller.js';
import type { Clock } from '../core/clock.js';
import { svcError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { Json, JsonObject } from '../core/wire-values.js';
import type { KvStore } from '../kv/port.js';
import type { FunctionRunner } from '../functions/index.js';
import { verifyCallback } from './callback-signature.js';
import { decryptUserData } from './decrypt.js';
import type { MediaCheckStore } from './media-checks.js';
import type { PlatformClient, QrInterface } from './platform-client.js';
import type { SessionKeyLedger } from './session-keys.js';
import type { PlatformAccount, WechatSettings } from './wechat-settings.js';

/** Largest text `checkMsg` takes: 500 KB, as the hosted service documents. */
export const CHECK_TEXT_MAX_BYTES = 500 * 1024;

export interface WechatServiceDeps {
  readonly settings: (app: Application) => WechatSettings;
  readonly platform: PlatformClient;
  readonly sessionKeys: SessionKeyLedger;
  readonly mediaChecks: MediaCheckStore;
  readonly kv: KvStore;
  readonly clock: Clock;
  readonly logger: Logger;
  /** The cloud-function runner, when the functions feature is on (async media verdicts go to it). */
  readonly functions: () => FunctionRunner | undefined;
  /** Virtual-payment events of the message push (a good delivered, coins paid). */
  readonly virtualPaid: (app: Application, event: JsonObject) => Promise<void>;
}

/** Message-push events of virtual payment; the platform wants `{ErrCode: 0, ErrMsg: 'success'}` back. */
const VIRTUAL_PAY_EVENTS = new Set(['xpay_goods_deliver_notify', 'xpay_coin_pay_notify']);

/**
 * The mini-program platform helpers as a caller plus typed input in, reply values out (the routes in
 * wechat-routes.ts map the SDK's requests onto it). Every operation answers 11205 when the
 * application has no `featureSettings.wechat.miniProgram`.
 */
export interface WechatService {
  /** `wechatAppv1/<code>`: the login code → `{openid, sk, expires_in, unionid?}` (the SDK's authData.weapp). */
  login(caller: Caller, code: string): Promise<JsonObject>;
  checkSessionKey(caller: Caller, input: JsonObject): Promise<JsonObject>;
  decrypt(caller: Caller, input: JsonObject): Promise<JsonObject>;
  phoneNumber(caller: Caller, input: JsonObject): Promise<JsonObject>;
  accessToken(caller: Caller): Promise<JsonObject>;
  /** v1 (`{content}`): `{msg: 'ok'}` or 10007; v2 (`version: 2`): the platform's verdict as it is. */
  checkText(caller: Caller, input: JsonObject): Promise<JsonObject>;
  checkImage(app: Application, image: Uint8Array, filename: string): Promise<{ ok: true } | { ok: false; platformCode: number; message: string }>;
  checkMediaAsync(caller: Caller, input: JsonObject): Promise<JsonObject>;
  /**
   * A platform message push (signature-checked): stores a media verdict and hands it to the configured
   * function, or marks a virtual-payment order paid. Answers the reply the platform expects.
   */
  callback(app: Application, query: URLSearchParams, body: JsonObject): Promise<Json>;
  /** The echo of the platform's URL check (`GET` with `echostr`), after the signature check. */
  verifyUrl(app: Application, query: URLSearchParams): Promise<string>;
  sendSubscribeMessage(caller: Caller, input: JsonObject): Promise<JsonObject>;
  notifyOwner(caller: Caller, input: JsonObject): Promise<JsonObject>;
  /** A mini-program code from the platform, or undefined when the application has no mini-program (the local QR code then). */
  qrCode(app: Application, iface: QrInterface, request: { path: string; width: number; scene?: string }): Promise<Uint8Array> | undefined;
}

function requireString(input: JsonObject, key: string, max = 1024): string {
  const value = input[key];
  if (typeof value !== 'string' || value === '') throw svcError('fieldMissing', key);
  if (value.length > max) throw svcError('invalidParameter', `${key} is longer than ${max} characters`);
  return value;
}

function requireObject(input: JsonObject, key: string): JsonObject {
  const value = input[key];
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw svcError('fieldMissing', key);
  return value;
}

/** The UTC day of an epoch time, for daily counters. */
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export function createWechatService(deps: WechatServiceDeps): WechatService {
  const miniProgram = (app: Application): PlatformAccount => {
    const account = deps.settings(app).miniProgram;
    if (!account) throw svcError('platformNotConfigured', 'miniProgram');
    return account;
  };

  return {
    async login(caller, code) {
      if (!/^[A-Za-z0-9_-]{1,128}$/.test(code)) throw svcError('authDataInvalid', 'invalid login code');
      const account = miniProgram(caller.app);
      const session = await deps.platform.code2Session(account, code);
      const settings = deps.settings(caller.app);
      await deps.sessionKeys.remember(caller.app, session.openid, session.sessionKey, settings.sessionKeyTtlSeconds, session.unionid);
      return { openid: session.openid, sk: session.sessionKey, expires_in: 7200, ...(session.unionid ? { unionid: session.unionid } : {}) };
    },
    async checkSessionKey(caller, input) {
      const account = miniProgram(caller.app);
      return deps.platform.checkSessionKey(account, requireString(input, 'openid', 128), requireString(input, 'sk', 256));
    },
    async decrypt(caller, input) {
      const account = miniProgram(caller.app);
      return decryptUserData({ sk: input.sk, encryptedData: input.encryptedData, iv: input.iv }, account.appId);
    },
    async phoneNumber(caller, input) {
      return deps.platform.phoneNumber(miniProgram(caller.app), requireString(input, 'code', 256));
    },
    async accessToken(caller) {
      return { access_token: await deps.platform.accessToken(miniProgram(caller.app)) };
    },
    async checkText(caller, input) {
      const account = miniProgram(caller.app);
      const content = input.content;
      if (typeof content !== 'string' || content === '') throw svcError('contentEmpty');
      if (Buffer.byteLength(content) > CHECK_TEXT_MAX_BYTES) throw svcError('invalidParameter', 'content is larger than 500 KB');
      const v2 = input.version === 2 || input.openid !== undefined;
      if (!v2) {
        const answer = await deps.platform.checkText(account, { content });
        if (answer.errcode === 87014) throw svcError('contentCheckFailed', `CheckMsg errcode:87014 ${String(answer.errmsg ?? 'risky content')}`);
        return { msg: 'ok' };
      }
      const scene = input.scene ?? 2;
      if (!Number.isInteger(scene) || (scene as number) < 1 || (scene as number) > 4) throw svcError('invalidParameter', 'scene is 1, 2, 3 or 4');
      return deps.platform.checkText(account, { content, version: 2, scene, openid: requireString(input, 'openid', 128) });
    },
    async checkImage(app, image, filename) {
      const account = deps.settings(app).miniProgram;
      if (!account) throw svcError('imageCheckNotConfigured');
      const answer = await deps.platform.checkImage(account, image, filename);
      if (answer.errcode === 87014) return { ok: false, platformCode: 87014, message: String(answer.errmsg ?? 'risky content') };
      return { ok: true };
    },
    async checkMediaAsync(caller, input) {
      const account = miniProgram(caller.app);
      const mediaUrl = requireString(input, 'media_url', 2048);
      if (!/^https?:\/\//i.test(mediaUrl)) throw svcError('invalidParameter', 'media_url must be an http(s) URL');
      const mediaType = input.media_type;
      if (mediaType !== 1 && mediaType !== 2) throw svcError('invalidParameter', 'media_type is 1 (audio) or 2 (image)');
      const scene = input.scene;
      if (!Number.isInteger(scene) || (scene as number) < 1 || (scene as number) > 4) throw svcError('invalidParameter', 'scene is 1, 2, 3 or 4');
      const openid = requireString(input, 'openid', 128);
      const request = { media_url: mediaUrl, media_type: mediaType, version: 2, scene: scene as number, openid };
      const traceId = await deps.platform.checkMediaAsync(account, request);
      await deps.mediaChecks.started(caller.app, traceId, request);
      return { msg: 'ok', traceId };
    },
    async verifyUrl(app, query) {
      const token = deps.settings(app).messageToken;
      if (!token) throw svcError('platformNotConfigured', 'messageToken');
      await verifyCallback(deps, app.applicationId, token, query);
      return query.get('echostr') ?? '';
    },
    async callback(app, query, body) {
      const token = deps.settings(app).messageToken;
      if (!token) throw svcError('platformNotConfigured', 'messageToken');
      await verifyCallback(deps, app.applicationId, token, query);
      if (typeof body.Event === 'string' && VIRTUAL_PAY_EVENTS.has(body.Event)) {
        await deps.virtualPaid(app, body);
        return { ErrCode: 0, ErrMsg: 'success' };
      }
      if (body.Event !== 'wxa_media_check' || typeof body.trace_id !== 'string') {
        deps.logger.info('wechat: platform event ignored', { app: app.applicationId, event: String(body.Event ?? body.MsgType ?? '') });
        return 'success';
      }
      const verdict: JsonObject = { result: body.result ?? null, detail: body.detail ?? [], errcode: body.errcode ?? 0, errmsg: body.errmsg ?? 'ok' };
      if (!(await deps.mediaChecks.finished(app, body.trace_id, verdict))) return 'success';
      const name = deps.settings(app).mediaCheckFunction;
      const runner = name ? deps.functions() : undefined;
      if (!name) return 'success';
      if (!runner) {
        deps.logger.warn('wechat: mediaCheckFunction is set but the functions feature is off', { app: app.applicationId });
        return 'success';
      }
      try {
        await runner.invoke({
          caller: internalCaller(app, { master: true }),
          name,
          request: { method: 'POST', body: { ...body } as { [key: string]: Json }, query: {}, headers: {} },
          depth: 0,
        });
      } catch (error) {
        deps.logger.warn('wechat: the media-check function failed', { app: app.applicationId, function: name, error: (error as Error).message });
      }
      return 'success';
    },
    async sendSubscribeMessage(caller, input) {
      const account = miniProgram(caller.app);
      const message: JsonObject = {
        touser: requireString(input, 'touser', 128),
        template_id: requireString(input, 'template_id', 128),
        data: requireObject(input, 'data'),
        ...(typeof input.page === 'string' ? { page: input.page } : {}),
        ...(typeof input.miniprogram_state === 'string' ? { miniprogram_state: input.miniprogram_state } : {}),
        ...(typeof input.lang === 'string' ? { lang: input.lang } : {}),
      };
      await deps.platform.sendSubscribeMessage(account, message);
      return { msg: 'ok' };
    },
    async notifyOwner(caller, input) {
      const settings = deps.settings(caller.app);
      if (!settings.officialAccount) throw svcError('platformNotConfigured', 'officialAccount');
      const message: JsonObject = {
        touser: requireString(input, 'touser', 128),
        template_id: requireString(input, 'template_id', 128),
        url: requireString(input, 'url', 2048),
        data: requireObject(input, 'data'),
      };
      const now = deps.clock.now();
      const key = `wechat:notify:${caller.app.applicationId}:${dayOf(now)}`;
      const count = await deps.kv.increment(key, 1, now + 2 * 86_400_000, now);
      if (count > settings.notifyMsgPerDay) {
        await deps.kv.increment(key, -1, now + 2 * 86_400_000, now);
        throw svcError('platformMessageLimit', settings.notifyMsgPerDay);
      }
      try {
        await deps.platform.sendTemplateMessage(settings.officialAccount, message);
      } catch (error) {
        await deps.kv.increment(key, -1, now + 2 * 86_400_000, now); // a failed send does not count
        throw error;
      }
      return { msg: 'ok' };
    },
    qrCode(app, iface, request) {
      const account = deps.settings(app).miniProgram;
      return account ? deps.platform.qrCode(account, iface, request) : undefined;
    },
  };
}
