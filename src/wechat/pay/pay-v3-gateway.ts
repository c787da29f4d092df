import { createDecipheriv, createSign, createVerify } from 'node:crypto';
import type { Clock } from '../../core/clock.js';
import { svcError } from '../../core/errors.js';
import { type Random, randomString } from '../../core/random.js';
import type { PayV3Settings } from '../wechat-settings.js';
import type { PayGateway } from './pay-gateway.js';

/** How far a signed reply's or notification's timestamp may be from the clock (seconds). */
const SKEW_SECONDS = 300;

/** RSA-SHA256 over `lines`, each followed by a newline, as base64: every v3 signature has this form. */
export function payV3Sign(privateKey: string, lines: readonly string[]): string {
  return createSign('RSA-SHA256').update(lines.map((line) => `${line}\n`).join('')).sign(privateKey, 'base64');
}

function verified(publicKey: string, lines: readonly string[], signature: string): boolean {
  try {
    return createVerify('RSA-SHA256').update(lines.map((line) => `${line}\n`).join('')).verify(publicKey, signature, 'base64');
  } catch {
    return false;
  }
}

/**
 * Whether a reply or notification carries the platform's signature (`Wechatpay-Signature` over
 * `timestamp\nnonce\nbody\n`) with a timestamp within 5 minutes of the clock.
 */
export function platformSigned(settings: PayV3Settings, clock: Clock, headers: Readonly<Record<string, string | undefined>>, body: string): boolean {
  const timestamp = headers['wechatpay-timestamp'] ?? '';
  const nonce = headers['wechatpay-nonce'] ?? '';
  const signature = headers['wechatpay-signature'] ?? '';
  if (!/^\d{1,12}$/.test(timestamp) || nonce === '' || signature === '') return false;
  if (Math.abs(clock.now() / 1000 - Number(timestamp)) > SKEW_SECONDS) return false;
  return verified(settings.platformPublicKey, [timestamp, nonce, body], signature);
}

interface EncryptedResource {
  readonly algorithm: string;
  readonly ciphertext: string;
  readonly associated_data?: string;
  readonly nonce: string;
}

/** Opens a notification's `resource` (AEAD_AES_256_GCM with the APIv3 key; the tag is the ciphertext's last 16 bytes). */
export function openResource(apiV3Key: string, resource: EncryptedResource): string | null {
  if (resource.algorithm !== 'AEAD_AES_256_GCM' || typeof resource.ciphertext !== 'string' || typeof resource.nonce !== 'string') return null;
  try {
    const data = Buffer.from(resource.ciphertext, 'base64');
    if (data.length < 17) return null;
    const decipher = createDecipheriv('aes-256-gcm', Buffer.from(apiV3Key, 'utf8'), Buffer.from(resource.nonce, 'utf8'));
    decipher.setAuthTag(data.subarray(data.length - 16));
    decipher.setAAD(Buffer.from(resource.associated_data ?? '', 'utf8'));
    return Buffer.concat([decipher.update(data.subarray(0, data.length - 16)), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Pay v3: JSON requests signed with the merchant's private key (`Authorization:
 * WECHATPAY2-SHA256-RSA2048 …` over `METHOD\nURL\nTS\nNONCE\nBODY\n`), replies and notifications
 * checked against the platform's public key, notifications decrypted with the APIv3 key.
 */
export function payV3Gateway(settings: PayV3Settings, deps: { readonly clock: Clock; readonly random: Random; readonly fetch?: typeof fetch }): PayGateway {
  const nonce = () => randomString(deps.random, 32);
  const seconds = () => String(Math.floor(deps.clock.now() / 1000));

  const call = async (path: string, payload: Record<string, unknown>): Promise<Record<string, unknown>> => {
    const body = JSON.stringify(payload);
    const timestamp = seconds();
    const nonceStr = nonce();
    const signature = payV3Sign(settings.privateKey, ['POST', path, timestamp, nonceStr, body]);
    const authorization = `WECHATPAY2-SHA256-RSA2048 mchid="${settings.mchId}",nonce_str="${nonceStr}",signature="${signature}",timestamp="${timestamp}",serial_no="${settings.serialNo}"`;
    let response: Response;
    try {
      response = await (deps.fetch ?? fetch)(`${settings.apiBase}${path}`, {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/json', accept: 'application/json' },
        body,
        signal: AbortSignal.timeout(settings.timeoutMs),
      });
    } catch (error) {
      throw svcError('platformUnavailable', (error as Error).name === 'TimeoutError' ? `no answer within ${settings.timeoutMs} ms` : (error as Error).message);
    }
    const text = await response.text();
    let reply: unknown;
    try {
      reply = text === '' ? {} : JSON.parse(text);
    } catch {
      throw svcError('platformUnavailable', `HTTP ${response.status} without a JSON body`);
    }
    if (!isObject(reply)) throw svcError('platformUnavailable', `HTTP ${response.status} with a non-object body`);
    if (!response.ok) throw svcError('payRefused', `payment platform: ${String(reply.code ?? response.status)} ${String(reply.message ?? '')}`.trim());
    const headers = Object.fromEntries([...response.headers].map(([name, value]) => [name.toLowerCase(), value]));
    if (!platformSigned(settings, deps.clock, headers, text)) throw svcError('platformUnavailable', 'the payment platform reply has a bad signature');
    return reply;
  };

  return {
    async order(request) {
      const reply = await call('/v3/pay/transactions/jsapi', {
        appid: request.appId,
        mchid: settings.mchId,
        description: request.description,
        out_trade_no: request.outTradeNo,
        notify_url: settings.notifyUrl,
        amount: { total: request.totalFee, currency: 'CNY' },
        payer: { openid: request.openid },
        ...(request.detail ? { attach: request.detail.slice(0, 128) } : {}),
        scene_info: { payer_client_ip: request.clientIp },
      });
      if (typeof reply.prepay_id !== 'string') throw svcError('platformUnavailable', 'the jsapi order answered no prepay_id');
      return reply.prepay_id;
    },
    paymentFields(appId, prepayId) {
      const timeStamp = seconds();
      const nonceStr = nonce();
      const pkg = `prepay_id=${prepayId}`;
      return { timeStamp, nonceStr, package: pkg, signType: 'RSA', paySign: payV3Sign(settings.privateKey, [appId, timeStamp, nonceStr, pkg]) };
    },
    readNotice(headers, body) {
      if (!platformSigned(settings, deps.clock, headers, body)) return { kind: 'refused', reason: 'bad signature' };
      let notice: unknown;
      try {
        notice = JSON.parse(body);
      } catch {
        return { kind: 'refused', reason: 'unreadable JSON' };
      }
      if (!isObject(notice) || !isObject(notice.resource)) return { kind: 'refused', reason: 'no resource' };
      if (notice.event_type !== 'TRANSACTION.SUCCESS') return { kind: 'other' };
      const plain = openResource(settings.apiV3Key, notice.resource as unknown as EncryptedResource);
      if (plain === null) return { kind: 'refused', reason: 'the resource does not decrypt' };
      let transaction: unknown;
      try {
        transaction = JSON.parse(plain);
      } catch {
        return { kind: 'refused', reason: 'the resource is not JSON' };
      }
      if (!isObject(transaction) || transaction.trade_state !== 'SUCCESS') return { kind: 'other' };
      const total = isObject(transaction.amount) ? transaction.amount.total : undefined;
      if (typeof transaction.out_trade_no !== 'string' || !Number.isSafeInteger(total)) return { kind: 'refused', reason: 'incomplete transaction' };
      return {
        kind: 'paid',
        appId: String(transaction.appid ?? ''),
        mchId: String(transaction.mchid ?? ''),
        outTradeNo: transaction.out_trade_no,
        totalFee: total as number,
        transactionId: String(transaction.transaction_id ?? ''),
      };
    },
    reply(accepted, message) {
      return accepted
        ? { status: 204, body: '', contentType: 'application/json' }
        : { status: 400, body: JSON.stringify({ code: 'FAIL', message }), contentType: 'application/json' };
    },
    async refund(request) {
      const reply = await call('/v3/refund/domestic/refunds', {
        out_trade_no: request.outTradeNo,
        out_refund_no: request.outRefundNo,
        reason: request.reason,
        amount: { refund: request.refundFee, total: request.totalFee, currency: 'CNY' },
      });
      return typeof reply.refund_id === 'string' ? reply.refund_id : '';
    },
  };
}
