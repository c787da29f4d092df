import { type Clock, systemClock } from '../../core/clock.js';
import { isSvcError, svcError } from '../../core/errors.js';
import type { DeliveryReport, SmsSendResult, SmsTransport } from '../transport.js';
import { parseTencentDeliveryReports } from './delivery-report.js';
import { tc3Authorization } from './tc3-signature.js';

export interface TencentSmsOptions {
  /** API credentials (CAM SecretId / SecretKey). */
  secretId: string;
  secretKey: string;
  /** The SMS application id (`SmsSdkAppId`, e.g. `1400006666`). */
  smsSdkAppId: string;
  /** The registered signature content (`SignName`), sent with every message. */
  signName: string;
  /** svcbase template name -> Tencent `TemplateId`. Variables are sent as `TemplateParamSet` in placeholder order. */
  templateIds: Readonly<Record<string, string>>;
  /** Default `ap-guangzhou`. */
  region?: string;
  /** Default `https://sms.tencentcloudapi.com`; point it at a local fake in tests. */
  endpoint?: string;
  /** Abort the request after this many milliseconds (default 10 000). */
  timeoutMs?: number;
  /** Source of X-TC-Timestamp (default the system clock). */
  clock?: Clock;
  /** Phone as Tencent expects it; default: 11-digit mainland numbers get `+86`, others are sent as is. */
  toE164?: (phone: string) => string;
  /** Default: global fetch. */
  fetch?: typeof fetch;
}

/** The Tencent transport, plus the entry point for Tencent's delivery-status callbacks. */
export interface TencentSmsTransport extends SmsTransport {
  /**
   * Feeds the body of a Tencent "SMS delivery status" callback (a JSON array of reports with `sid`
   * and `report_status`) to the delivery-report listeners. Returns how many reports it understood.
   */
  receiveReports(body: unknown): number;
}

const VERSION = '2021-01-11';
const CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * Tencent Cloud SMS (API 3.0, action `SendSms`, version 2021-01-11) over HTTPS with TC3-HMAC-SHA256
 * request signing, node:crypto and global fetch. A reply is accepted only when
 * `Response.SendStatusSet[0].Code == "Ok"` (providerId = its `SerialNo`); `Response.Error`, another
 * status code, a malformed reply, a network failure or the timeout reject with 11044 naming the
 * provider's code, so the message counts as not sent.
 *
 * @example
 * tencentSmsTransport({ secretId, secretKey, smsSdkAppId: '1400006666', signName: 'svcb',
 *   templateIds: { default: '1234567' } })
 */
export function tencentSmsTransport(options: TencentSmsOptions): TencentSmsTransport {
  const endpoint = new URL(options.endpoint ?? 'https://sms.tencentcloudapi.com');
  const timeoutMs = options.timeoutMs ?? 10_000;
  const clock = options.clock ?? systemClock;
  const doFetch = options.fetch ?? fetch;
  const toE164 = options.toE164 ?? ((phone: string) => (/^1\d{10}$/.test(phone) ? `+86${phone}` : phone));
  const listeners = new Set<(report: DeliveryReport) => void>();
  const fail = (detail: string) => svcError('smsProviderFailed', `tencent: ${detail}`);

  return {
    name: 'tencent',
    async send(message): Promise<SmsSendResult> {
      const templateId = options.templateIds[message.templateName];
      if (templateId === undefined) throw fail(`no TemplateId configured for template '${message.templateName}'`);
      const payload = JSON.stringify({
        PhoneNumberSet: [toE164(message.to)],
        SmsSdkAppId: options.smsSdkAppId,
        SignName: options.signName,
        TemplateId: templateId,
        TemplateParamSet: Object.values(message.variables),
        SessionContext: String(message.smsId),
      });
      const timestamp = Math.floor(clock.now() / 1000);
      const headers = {
        Authorization: tc3Authorization({ ...options, service: 'sms', host: endpoint.host, contentType: CONTENT_TYPE, payload, timestamp, path: endpoint.pathname }),
        'Content-Type': CONTENT_TYPE,
        'X-TC-Action': 'SendSms',
        'X-TC-Version': VERSION,
        'X-TC-Timestamp': String(timestamp),
        'X-TC-Region': options.region ?? 'ap-guangzhou',
      };
      const abort = new AbortController();
      const timer = setTimeout(() => abort.abort(), timeoutMs);
      let reply: unknown;
      try {
        const response = await doFetch(endpoint, { method: 'POST', headers, body: payload, signal: abort.signal });
        const text = await response.text();
        try {
          reply = JSON.parse(text);
        } catch {
          throw fail(`HTTP ${response.status} with a non-JSON reply`);
        }
      } catch (error) {
        if (abort.signal.aborted) throw fail(`no reply within ${timeoutMs} ms`);
        if (isSvcError(error)) throw error;
        throw fail(error instanceof Error ? error.message : String(error));
      } finally {
        clearTimeout(timer);
      }
      return readSendReply(reply, fail);
    },
    onDeliveryReport(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    receiveReports(body) {
      const reports = parseTencentDeliveryReports(body);
      for (const report of reports) for (const listener of listeners) listener(report);
      return reports.length;
    },
  };
}

interface SendReply {
  Response?: {
    Error?: { Code?: string; Message?: string };
    SendStatusSet?: Array<{ SerialNo?: string; Code?: string; Message?: string }>;
    RequestId?: string;
  };
}

function readSendReply(reply: unknown, fail: (detail: string) => Error): SmsSendResult {
  const response = (reply as SendReply | null)?.Response;
  if (!response || typeof response !== 'object') throw fail('reply without Response');
  if (response.Error) throw fail(`${response.Error.Code ?? 'Error'} ${response.Error.Message ?? ''} (RequestId ${response.RequestId ?? '?'})`.trim());
  const status = response.SendStatusSet?.[0];
  if (!status) throw fail('reply without SendStatusSet');
  if (status.Code !== 'Ok') throw fail(`${status.Code ?? 'unknown'} ${status.Message ?? ''}`.trim());
  if (typeof status.SerialNo !== 'string' || status.SerialNo.length === 0) throw fail('reply without SerialNo');
  return { providerId: status.SerialNo };
}
