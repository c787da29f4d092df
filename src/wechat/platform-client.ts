import { createHmac } from 'node:crypto';
import { svcError } from '../core/errors.js';
import type { Json, JsonObject } from '../core/wire-values.js';
import { type AccessTokens, STALE_TOKEN_CODES } from './access-tokens.js';
import { type PlatformReply, callPlatform, errcodeOf, platformFailure } from './platform-http.js';
import type { PlatformAccount } from './wechat-settings.js';

/** What `jscode2session` answers for a login code. */
export interface PlatformSession {
  readonly openid: string;
  readonly sessionKey: string;
  readonly unionid?: string;
}

/** Which QR interface: a (`getwxacode`), b (`getwxacodeunlimit`: scene + page), c (`createwxaqrcode`). */
export type QrInterface = 'a' | 'b' | 'c';

export interface QrRequest {
  readonly path: string;
  readonly width: number;
  readonly scene?: string;
}

/** A JSON reply the caller inspects itself (errcode 0 or one of the codes it asked to see). */
export type PlatformAnswer = JsonObject;

/**
 * The mini-program platform, as the wechat feature uses it. `wechatPlatformClient` speaks the real
 * HTTP API; tests and hosts may pass their own. Every method throws coded errors: 301/424 carrying
 * the platform's errcode, 208 for a login code the platform refuses, 11206 when it does not answer.
 */
export interface PlatformClient {
  code2Session(account: PlatformAccount, code: string): Promise<PlatformSession>;
  /** `{errcode: 0, errmsg: 'ok'}` for a live session key, or the platform's refusal (87009). */
  checkSessionKey(account: PlatformAccount, openid: string, sessionKey: string): Promise<PlatformAnswer>;
  /** The `phone_info` of a `getPhoneNumber` code, with the platform's errcode and errmsg. */
  phoneNumber(account: PlatformAccount, code: string): Promise<PlatformAnswer>;
  accessToken(account: PlatformAccount): Promise<string>;
  /** `msg_sec_check`: version 1 answers `{errcode: 87014}` for risky text, version 2 a `result`. */
  checkText(account: PlatformAccount, input: JsonObject): Promise<PlatformAnswer>;
  /** `img_sec_check`: `{errcode: 0}` or `{errcode: 87014}`. */
  checkImage(account: PlatformAccount, image: Uint8Array, filename: string): Promise<PlatformAnswer>;
  /** `media_check_async`: the `trace_id` the verdict will carry. */
  checkMediaAsync(account: PlatformAccount, input: JsonObject): Promise<string>;
  /** A mini-program code or QR code image. */
  qrCode(account: PlatformAccount, iface: QrInterface, request: QrRequest): Promise<Uint8Array>;
  sendSubscribeMessage(account: PlatformAccount, message: JsonObject): Promise<void>;
  /** A customer-service message (`/cgi-bin/message/custom/send`); with `token`, that access token is used as given. */
  sendCustomerMessage(account: PlatformAccount, message: JsonObject, token?: string): Promise<void>;
  /** An official-account template message: its `msgid`. */
  sendTemplateMessage(account: PlatformAccount, message: JsonObject): Promise<number | string | null>;
  /**
   * A virtual-payment call (`/xpay/...`): `sign` gets the exact body text and answers the query's
   * `pay_sig` (and the user-state `signature`, where the call needs one). The platform's JSON answer,
   * errcode 0 only.
   */
  virtualPay(account: PlatformAccount, path: string, body: JsonObject, sign: (bodyText: string) => Record<string, string>): Promise<PlatformAnswer>;
}

/** Login codes the platform refuses: invalid (40029) or already used (40163). */
const BAD_CODE = new Set([40029, 40163]);

/**
 * The platform client over fetch and an access-token cache. Calls that need a token get it from
 * `tokens`; a token the platform calls stale (40001, 40014, 42001) is renewed and the call retried
 * once.
 */
export function wechatPlatformClient(deps: { readonly tokens: AccessTokens; readonly fetch?: typeof fetch }): PlatformClient {
  const call = (account: PlatformAccount, method: 'GET' | 'POST', path: string, query: Record<string, string>, body?: JsonObject | FormData) =>
    callPlatform(
      {
        method,
        url: `${account.apiBase}${path}?${new URLSearchParams(query)}`,
        ...(body instanceof FormData ? { form: body } : body ? { json: body } : {}),
        timeoutMs: account.timeoutMs,
      },
      deps.fetch,
    );

  /** A call with `access_token` in the query string, retried once with a renewed token. */
  const withToken = async (account: PlatformAccount, method: 'GET' | 'POST', path: string, query: Record<string, string>, body?: () => JsonObject | FormData): Promise<PlatformReply> => {
    let token = await deps.tokens.get(account);
    let reply = await call(account, method, path, { ...query, access_token: token }, body?.());
    if (reply.kind === 'json' && STALE_TOKEN_CODES.has(errcodeOf(reply.body))) {
      token = await deps.tokens.renew(account, token);
      reply = await call(account, method, path, { ...query, access_token: token }, body?.());
    }
    return reply;
  };

  /** The JSON body of a reply; errcodes other than 0 and `allowed` throw. */
  const json = (reply: PlatformReply, allowed: readonly number[] = []): JsonObject => {
    if (reply.kind !== 'json') throw svcError('platformUnavailable', 'unexpected bytes in the reply');
    const code = errcodeOf(reply.body);
    if (code !== 0 && !allowed.includes(code)) throw platformFailure(reply.body);
    return reply.body;
  };

  return {
    async code2Session(account, code) {
      const reply = await call(account, 'GET', '/sns/jscode2session', { appid: account.appId, secret: account.secret, js_code: code, grant_type: 'authorization_code' });
      const body = json(reply, [...BAD_CODE]);
      if (BAD_CODE.has(errcodeOf(body))) throw svcError('authDataInvalid', `the platform refused the login code (errcode ${errcodeOf(body)})`);
      const { openid, session_key: sessionKey, unionid } = body;
      if (typeof openid !== 'string' || typeof sessionKey !== 'string') throw svcError('platformUnavailable', 'jscode2session answered no openid');
      return { openid, sessionKey, ...(typeof unionid === 'string' ? { unionid } : {}) };
    },
    async checkSessionKey(account, openid, sessionKey) {
      const signature = createHmac('sha256', sessionKey).update('').digest('hex');
      return json(await withToken(account, 'GET', '/wxa/checksession', { signature, openid, sig_method: 'hmac_sha256' }), [87009]);
    },
    async phoneNumber(account, code) {
      return json(await withToken(account, 'POST', '/wxa/business/getuserphonenumber', {}, () => ({ code })));
    },
    accessToken: (account) => deps.tokens.get(account),
    async checkText(account, input) {
      return json(await withToken(account, 'POST', '/wxa/msg_sec_check', {}, () => input), [87014]);
    },
    async checkImage(account, image, filename) {
      const form = () => {
        const data = new FormData();
        data.append('media', new Blob([image]), filename);
        return data;
      };
      return json(await withToken(account, 'POST', '/wxa/img_sec_check', {}, form), [87014]);
    },
    async checkMediaAsync(account, input) {
      const body = json(await withToken(account, 'POST', '/wxa/media_check_async', {}, () => input));
      if (typeof body.trace_id !== 'string') throw svcError('platformUnavailable', 'media_check_async answered no trace_id');
      return body.trace_id;
    },
    async qrCode(account, iface, request) {
      const path = iface === 'a' ? '/wxa/getwxacode' : iface === 'b' ? '/wxa/getwxacodeunlimit' : '/cgi-bin/wxaapp/createwxaqrcode';
      const body: { [key: string]: Json } =
        iface === 'b' ? { scene: request.scene ?? '', page: request.path.replace(/^\/+/, ''), width: request.width, check_path: false } : { path: request.path, width: request.width };
      const reply = await withToken(account, 'POST', path, {}, () => body);
      if (reply.kind === 'bytes') return reply.body;
      json(reply);
      throw svcError('platformUnavailable', 'the QR endpoint answered no image');
    },
    async sendSubscribeMessage(account, message) {
      json(await withToken(account, 'POST', '/cgi-bin/message/subscribe/send', {}, () => message));
    },
    async sendCustomerMessage(account, message, token) {
      if (token === undefined) json(await withToken(account, 'POST', '/cgi-bin/message/custom/send', {}, () => message));
      else json(await call(account, 'POST', '/cgi-bin/message/custom/send', { access_token: token }, message));
    },
    async sendTemplateMessage(account, message) {
      const body = json(await withToken(account, 'POST', '/cgi-bin/message/template/send', {}, () => message));
      return typeof body.msgid === 'number' || typeof body.msgid === 'string' ? body.msgid : null;
    },
    async virtualPay(account, path, body, sign) {
      // callPlatform sends JSON.stringify(body): the same text the signatures cover.
      return json(await withToken(account, 'POST', path, sign(JSON.stringify(body)), () => body));
    },
  };
}
