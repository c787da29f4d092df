import type { AiOptions, ApplicationConfig, PushOptions } from '../index.js';
import { openAiCompatibleProvider, webPushTransport } from '../index.js';
import { UsageError } from './args.js';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The application `svcbase serve` hosts: fixed development keys unless the environment names others,
 * `$regex`, email verification and realtime on, an unlimited SMS quota with two approved templates,
 * the mini-program platform when SVC_WECHAT_* are set, and client pushes with SVC_PUSH_CLIENT=1. `publicUrl` (the listen URL; SVC_PUBLIC_URL
 * wins over it) is the application's public URL: the base of uploaded files' urls, captcha links and
 * mailed links.
 */
export function devApplication(env: Env = process.env, publicUrl?: string): ApplicationConfig {
  const linkBase = env.SVC_PUBLIC_URL ?? publicUrl ?? `http://127.0.0.1:${env.PORT ?? 3000}`;
  const applicationId = env.SVC_APP_ID ?? 'dev-app-id';
  const wechat = wechatFromEnv(env, applicationId, linkBase);
  return {
    applicationId,
    restApiKey: env.SVC_REST_KEY ?? 'dev-rest-key',
    masterKey: env.SVC_MASTER_KEY ?? 'dev-master-key',
    secretKey: env.SVC_SECRET_KEY ?? 'dev-secret-key',
    securityCode: env.SVC_SECURITY_CODE ?? 'dev-safe-code',
    publicUrl: linkBase,
    settings: {
      features: { regex: true, emailVerification: true, realtime: true },
      sms: {
        quota: 'unlimited',
        templates: [
          { name: 'order-shipped', kind: 'notification', approved: true, text: 'Your order ${order} has shipped, arriving ${day}.' },
          { name: 'login-captcha', kind: 'code', approved: true, captchaRequired: true, validityMinutes: 5, text: 'Login code ${code}, valid 5 minutes.' },
        ],
      },
    },
    ...(wechat || flag(env.SVC_PUSH_CLIENT) ? { featureSettings: { ...(wechat ? { wechat } : {}), ...(flag(env.SVC_PUSH_CLIENT) ? { push: { clientPush: true } } : {}) } } : {}),
  };
}

const EXTRA_KEYS = ['applicationId', 'restApiKey', 'masterKey', 'secretKey', 'securityCode'] as const;

/**
 * Further applications `svcbase serve` hosts beside the dev application, from SVC_EXTRA_APPS: a JSON
 * array of `{applicationId, restApiKey, masterKey, secretKey?, securityCode?}`. Each gets the dev
 * application's settings (realtime, `$regex`, the SMS templates) and public URL, its own keys and
 * data; the functions folder is deployed to the dev application only. A malformed value is a usage
 * error (exit 2), never ignored.
 */
export function extraApplications(env: Env = process.env, publicUrl?: string): ApplicationConfig[] {
  const text = env.SVC_EXTRA_APPS?.trim() ?? '';
  if (!text) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`SVC_EXTRA_APPS is not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!Array.isArray(parsed)) throw new UsageError('SVC_EXTRA_APPS must be a JSON array of {applicationId, restApiKey, masterKey, secretKey?, securityCode?}');
  const { settings, publicUrl: linkBase } = devApplication(env, publicUrl);
  return parsed.map((entry: unknown, i) => {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) throw new UsageError(`SVC_EXTRA_APPS[${i}] must be an object`);
    const fields = entry as Record<string, unknown>;
    const unknown = Object.keys(fields).find((key) => !(EXTRA_KEYS as readonly string[]).includes(key));
    if (unknown !== undefined) throw new UsageError(`SVC_EXTRA_APPS[${i}]: '${unknown.slice(0, 40)}' is not one of ${EXTRA_KEYS.join(', ')}`);
    for (const key of EXTRA_KEYS) {
      const value = fields[key];
      const required = key === 'applicationId' || key === 'restApiKey' || key === 'masterKey';
      if (value === undefined && !required) continue;
      if (typeof value !== 'string' || value === '') throw new UsageError(`SVC_EXTRA_APPS[${i}].${key} must be a non-empty string`);
    }
    const keys = fields as Partial<Record<(typeof EXTRA_KEYS)[number], string>>;
    return {
      applicationId: keys.applicationId!,
      restApiKey: keys.restApiKey!,
      masterKey: keys.masterKey!,
      ...(keys.secretKey ? { secretKey: keys.secretKey } : {}),
      ...(keys.securityCode ? { securityCode: keys.securityCode } : {}),
      ...(linkBase ? { publicUrl: linkBase } : {}),
      ...(settings ? { settings } : {}),
    };
  });
}

/** `1` or `true` (any case) turns a switch on; anything else leaves it off. */
const flag = (value: string | undefined): boolean => value !== undefined && /^(1|true)$/i.test(value.trim());

/**
 * The mini-program platform from SVC_WECHAT_*; none without an appid and secret. Optional beside it:
 * WeChat Pay v2 (SVC_WECHAT_MCHID, SVC_WECHAT_PAY_KEY; SVC_WECHAT_PAY_CLIENT_REFUND=1 lets the REST
 * key refund), the official account of owner notifications (SVC_WECHAT_OA_APPID, SVC_WECHAT_OA_SECRET),
 * virtual payment (SVC_WECHAT_VP_OFFER_ID, SVC_WECHAT_VP_APP_KEY, SVC_WECHAT_VP_SANDBOX_APP_KEY) and
 * the message-push token (SVC_WECHAT_MESSAGE_TOKEN, SVC_WECHAT_MEDIA_CHECK_FUNCTION).
 */
function wechatFromEnv(env: Env, applicationId: string, publicUrl: string): Record<string, unknown> | undefined {
  const appId = env.SVC_WECHAT_APPID ?? '';
  const secret = env.SVC_WECHAT_SECRET ?? '';
  if (!appId || !secret) return undefined;
  const apiBase = env.SVC_WECHAT_API_BASE ? { apiBase: env.SVC_WECHAT_API_BASE } : {};
  const miniProgram = { appId, secret, ...apiBase };
  const mchId = env.SVC_WECHAT_MCHID ?? '';
  const key = env.SVC_WECHAT_PAY_KEY ?? '';
  const pay =
    mchId && key
      ? {
          mchId,
          key,
          notifyUrl: `${publicUrl.replace(/\/+$/, '')}/1/pay/notify/${applicationId}`,
          ...(env.SVC_WECHAT_PAY_API_BASE ? { apiBase: env.SVC_WECHAT_PAY_API_BASE } : {}),
          ...(flag(env.SVC_WECHAT_PAY_CLIENT_REFUND) ? { clientRefund: true } : {}),
        }
      : null;
  const oaAppId = env.SVC_WECHAT_OA_APPID ?? '';
  const oaSecret = env.SVC_WECHAT_OA_SECRET ?? '';
  const offerId = env.SVC_WECHAT_VP_OFFER_ID ?? '';
  const vpKey = env.SVC_WECHAT_VP_APP_KEY ?? '';
  return {
    miniProgram,
    pay,
    ...(oaAppId && oaSecret ? { officialAccount: { appId: oaAppId, secret: oaSecret, ...apiBase } } : {}),
    ...(offerId && vpKey ? { virtualPay: { offerId, appKey: vpKey, ...(env.SVC_WECHAT_VP_SANDBOX_APP_KEY ? { sandboxAppKey: env.SVC_WECHAT_VP_SANDBOX_APP_KEY } : {}) } } : {}),
    ...(env.SVC_WECHAT_MESSAGE_TOKEN ? { messageToken: env.SVC_WECHAT_MESSAGE_TOKEN } : {}),
    ...(env.SVC_WECHAT_MEDIA_CHECK_FUNCTION ? { mediaCheckFunction: env.SVC_WECHAT_MEDIA_CHECK_FUNCTION } : {}),
  };
}

/** Web Push from SVC_VAPID_PUBLIC_KEY / SVC_VAPID_PRIVATE_KEY / SVC_VAPID_SUBJECT; no transport without the keys. */
export function pushFromEnv(env: Env = process.env): PushOptions {
  const publicKey = env.SVC_VAPID_PUBLIC_KEY ?? '';
  const privateKey = env.SVC_VAPID_PRIVATE_KEY ?? '';
  if (!publicKey || !privateKey) return {};
  return { webPush: webPushTransport({ vapid: { publicKey, privateKey, subject: env.SVC_VAPID_SUBJECT ?? 'mailto:admin@localhost' } }) };
}

/** AI chat's provider from SVC_AI_BASE_URL / SVC_AI_API_KEY / SVC_AI_MODEL; none without a base URL. */
export function aiFromEnv(env: Env = process.env): AiOptions {
  const baseUrl = env.SVC_AI_BASE_URL ?? '';
  if (!baseUrl) return {};
  return {
    provider: openAiCompatibleProvider({ baseUrl, ...(env.SVC_AI_API_KEY ? { apiKey: env.SVC_AI_API_KEY } : {}) }),
    ...(env.SVC_AI_MODEL ? { model: env.SVC_AI_MODEL } : {}),
  };
}
