import { createPrivateKey, createPublicKey } from 'node:crypto';

/** An account on the platform: a mini-program, or the official account owner notifications go through. */
export interface PlatformAccount {
  readonly appId: string;
  readonly secret: string;
  /** Base URL of the platform's API (default `https://api.weixin.qq.com`; a local fake in tests). */
  readonly apiBase: string;
  /** How long one platform call may take (default 5000 ms; 11206 past it). */
  readonly timeoutMs: number;
}

/** What both Pay versions share. */
interface PayCommon {
  readonly mchId: string;
  /** Default `https://api.mch.weixin.qq.com`. */
  readonly apiBase: string;
  /** The public URL of `POST /1/pay/notify/<applicationId>` the platform posts payment results to. */
  readonly notifyUrl: string;
  /** Whether REST-key callers may refund (default false: only the master key; docs/wechat.md says why). */
  readonly clientRefund: boolean;
  readonly timeoutMs: number;
}

/** Pay v2 (XML, signed with the merchant's API key): the default. */
export interface PayV2Settings extends PayCommon {
  readonly version: 'v2';
  /** The merchant's API key (v2): signs requests and checks replies and notifications. */
  readonly key: string;
  readonly signType: 'MD5' | 'HMAC-SHA256';
  /** The merchant's client certificate (PKCS#12, base64) that refunds need on the real platform. */
  readonly certificate: { readonly pfx: string; readonly passphrase: string } | null;
}

/** Pay v3 (JSON, RSA-SHA256 signatures, AES-256-GCM notifications). */
export interface PayV3Settings extends PayCommon {
  readonly version: 'v3';
  /** The APIv3 key (32 characters): decrypts notifications. */
  readonly apiV3Key: string;
  /** The merchant's private key (PEM) that signs requests and `paySign`. */
  readonly privateKey: string;
  /** The serial number of the merchant's certificate, named in every request's Authorization. */
  readonly serialNo: string;
  /** The platform's public key (PEM) that replies and notifications are signed with. */
  readonly platformPublicKey: string;
}

export type PaySettings = PayV2Settings | PayV3Settings;

/** Virtual payment (`/1/wxvp/*`): the offer and its AppKeys from the platform's virtual-payment console. */
export interface VirtualPaySettings {
  readonly offerId: string;
  /** Signs `pay_sig` in the live environment (env 0). */
  readonly appKey: string;
  /** Signs `pay_sig` in the sandbox (env 1); without it env 1 answers 11205. */
  readonly sandboxAppKey: string | null;
}

/** One application's mini-program settings: `applications[].featureSettings.wechat`. */
export interface WechatSettings {
  /** The mini-program; null: every route answers 11205. */
  readonly miniProgram: PlatformAccount | null;
  /** The official account `notifyMsg` sends template messages through; null: notifyMsg answers 11205. */
  readonly officialAccount: PlatformAccount | null;
  readonly pay: PaySettings | null;
  readonly virtualPay: VirtualPaySettings | null;
  /** How long a session key from `wechatAppv1` is remembered for verifying `authData.weapp` (default 3 days). */
  readonly sessionKeyTtlSeconds: number;
  /** The token of the platform's message push (callback signatures); null: callbacks are refused. */
  readonly messageToken: string | null;
  /** The cloud function that receives async media-check verdicts (default none: they are only stored). */
  readonly mediaCheckFunction: string | null;
  /** Owner notifications per UTC day (default 50, as the hosted service; 10100 beyond). */
  readonly notifyMsgPerDay: number;
}

export const DEFAULT_API_BASE = 'https://api.weixin.qq.com';
export const DEFAULT_PAY_API_BASE = 'https://api.mch.weixin.qq.com';

export const DEFAULT_WECHAT_SETTINGS: WechatSettings = Object.freeze({
  miniProgram: null,
  officialAccount: null,
  pay: null,
  virtualPay: null,
  sessionKeyTtlSeconds: 3 * 86_400,
  messageToken: null,
  mediaCheckFunction: null,
  notifyMsgPerDay: 50,
});

type Slice = Record<string, unknown>;

function objectOf(value: unknown, what: string): Slice {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`${what} must be an object`);
  return value as Slice;
}

function onlyKeys(slice: Slice, allowed: readonly string[], what: string): void {
  for (const key of Object.keys(slice)) if (!allowed.includes(key)) throw new Error(`unknown setting '${what}.${key}'`);
}

function text(slice: Slice, key: string, what: string): string {
  const value = slice[key];
  if (typeof value !== 'string' || value === '') throw new Error(`${what}.${key} must be a non-empty string`);
  return value;
}

function baseUrl(value: unknown, fallback: string, what: string): string {
  if (value === undefined) return fallback;
  if (typeof value !== 'string') throw new Error(`${what} must be a URL`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`${what} must be a URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error(`${what} must be an http(s) URL`);
  return value.replace(/\/+$/, '');
}

function timeout(value: unknown, what: string): number {
  if (value === undefined) return 5000;
  if (!Number.isSafeInteger(value) || (value as number) < 1) throw new Error(`${what}.timeoutMs must be a positive integer`);
  return value as number;
}

function account(value: unknown, what: string): PlatformAccount | null {
  if (value === undefined || value === null) return null;
  const slice = objectOf(value, what);
  onlyKeys(slice, ['appId', 'secret', 'apiBase', 'timeoutMs'], what);
  return Object.freeze({
    appId: text(slice, 'appId', what),
    secret: text(slice, 'secret', what),
    apiBase: baseUrl(slice.apiBase, DEFAULT_API_BASE, `${what}.apiBase`),
    timeoutMs: timeout(slice.timeoutMs, what),
  });
}

const PAY_COMMON = ['version', 'mchId', 'apiBase', 'notifyUrl', 'clientRefund', 'timeoutMs'];

function pem(slice: Slice, key: string, kind: 'PRIVATE' | 'PUBLIC'): string {
  const value = text(slice, key, 'pay');
  try {
    if (kind === 'PRIVATE') createPrivateKey(value);
    else createPublicKey(value);
  } catch {
    throw new Error(`pay.${key} must be a PEM ${kind.toLowerCase()} key`);
  }
  return value;
}

function pay(value: unknown): PaySettings | null {
  if (value === undefined || value === null) return null;
  const slice = objectOf(value, 'pay');
  const version = slice.version ?? 'v2';
  if (version !== 'v2' && version !== 'v3') throw new Error("pay.version is 'v2' or 'v3'");
  const clientRefund = slice.clientRefund ?? false;
  if (typeof clientRefund !== 'boolean') throw new Error('pay.clientRefund is a boolean');
  const common = {
    mchId: text(slice, 'mchId', 'pay'),
    apiBase: baseUrl(slice.apiBase, DEFAULT_PAY_API_BASE, 'pay.apiBase'),
    notifyUrl: baseUrl(text(slice, 'notifyUrl', 'pay'), '', 'pay.notifyUrl'),
    clientRefund,
    timeoutMs: timeout(slice.timeoutMs, 'pay'),
  };
  if (version === 'v3') {
    onlyKeys(slice, [...PAY_COMMON, 'apiV3Key', 'privateKey', 'serialNo', 'platformPublicKey'], 'pay');
    const apiV3Key = text(slice, 'apiV3Key', 'pay');
    if (Buffer.byteLength(apiV3Key) !== 32) throw new Error('pay.apiV3Key must be 32 bytes');
    return Object.freeze({
      version,
      ...common,
      apiV3Key,
      privateKey: pem(slice, 'privateKey', 'PRIVATE'),
      serialNo: text(slice, 'serialNo', 'pay'),
      platformPublicKey: pem(slice, 'platformPublicKey', 'PUBLIC'),
    });
  }
  onlyKeys(slice, [...PAY_COMMON, 'key', 'signType', 'certificate'], 'pay');
  const signType = slice.signType ?? 'MD5';
  if (signType !== 'MD5' && signType !== 'HMAC-SHA256') throw new Error("pay.signType is 'MD5' or 'HMAC-SHA256'");
  let certificate: PayV2Settings['certificate'] = null;
  if (slice.certificate !== undefined && slice.certificate !== null) {
    const cert = objectOf(slice.certificate, 'pay.certificate');
    onlyKeys(cert, ['pfx', 'passphrase'], 'pay.certificate');
    certificate = Object.freeze({ pfx: text(cert, 'pfx', 'pay.certificate'), passphrase: typeof cert.passphrase === 'string' ? cert.passphrase : '' });
  }
  return Object.freeze({ version, ...common, key: text(slice, 'key', 'pay'), signType, certificate });
}

function virtualPay(value: unknown): VirtualPaySettings | null {
  if (value === undefined || value === null) return null;
  const slice = objectOf(value, 'virtualPay');
  onlyKeys(slice, ['offerId', 'appKey', 'sandboxAppKey'], 'virtualPay');
  return Object.freeze({
    offerId: text(slice, 'offerId', 'virtualPay'),
    appKey: text(slice, 'appKey', 'virtualPay'),
    sandboxAppKey: slice.sandboxAppKey === undefined || slice.sandboxAppKey === null ? null : text(slice, 'sandboxAppKey', 'virtualPay'),
  });
}

/** Merges an application's slice over the defaults and validates it (an Error fails createService with 11116). */
export function resolveWechatSettings(given: unknown, defaults: WechatSettings): WechatSettings {
  if (given === undefined) return defaults;
  const slice = objectOf(given, 'wechat settings');
  onlyKeys(slice, Object.keys(DEFAULT_WECHAT_SETTINGS), 'wechat');
  const out = {
    ...defaults,
    miniProgram: slice.miniProgram === undefined ? defaults.miniProgram : account(slice.miniProgram, 'miniProgram'),
    officialAccount: slice.officialAccount === undefined ? defaults.officialAccount : account(slice.officialAccount, 'officialAccount'),
    pay: slice.pay === undefined ? defaults.pay : pay(slice.pay),
    virtualPay: slice.virtualPay === undefined ? defaults.virtualPay : virtualPay(slice.virtualPay),
  };
  for (const key of ['sessionKeyTtlSeconds', 'notifyMsgPerDay'] as const) {
    if (slice[key] === undefined) continue;
    if (!Number.isSafeInteger(slice[key]) || (slice[key] as number) < 1) throw new Error(`${key} must be a positive integer`);
    out[key] = slice[key] as number;
  }
  for (const key of ['messageToken', 'mediaCheckFunction'] as const) {
    if (slice[key] === undefined) continue;
    if (slice[key] !== null && (typeof slice[key] !== 'string' || slice[key] === '')) throw new Error(`${key} is a non-empty string or null`);
    out[key] = slice[key] as string | null;
  }
  if (out.pay && !out.miniProgram) throw new Error('pay needs miniProgram (its appId signs the orders)');
  if (out.virtualPay && !out.miniProgram) throw new Error('virtualPay needs miniProgram');
  return Object.freeze(out);
}
