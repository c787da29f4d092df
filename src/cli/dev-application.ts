import type { AiOptions, ApplicationConfig, PushOptions } from '../index.js';
import { openAiCompatibleProvider, webPushTransport } from '../index.js';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The application `svcbase serve` hosts: fixed development keys unless the environment names others,
 * `$regex`, email verification and realtime on, an unlimited SMS quota with two approved templates,
 * and the mini-program platform when SVC_WECHAT_* are set. `publicUrl` (the listen URL; SVC_PUBLIC_URL
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
    ...(wechat ? { featureSettings: { wechat } } : {}),
  };
}

/** The mini-program platform and WeChat Pay from SVC_WECHAT_*; none without an appid and secret. */
function wechatFromEnv(env: Env, applicationId: string, publicUrl: string): Record<string, unknown> | undefined {
  const appId = env.SVC_WECHAT_APPID ?? '';
  const secret = env.SVC_WECHAT_SECRET ?? '';
  if (!appId || !secret) return undefined;
  const miniProgram = { appId, secret, ...(env.SVC_WECHAT_API_BASE ? { apiBase: env.SVC_WECHAT_API_BASE } : {}) };
  const mchId = env.SVC_WECHAT_MCHID ?? '';
  const key = env.SVC_WECHAT_PAY_KEY ?? '';
  const pay =
    mchId && key
      ? { mchId, key, notifyUrl: `${publicUrl.replace(/\/+$/, '')}/1/pay/notify/${applicationId}`, ...(env.SVC_WECHAT_PAY_API_BASE ? { apiBase: env.SVC_WECHAT_PAY_API_BASE } : {}) }
      : null;
  return { miniProgram, pay };
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
