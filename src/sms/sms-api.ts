import type { Application } from '../app/application.js';
import type { SmsQuotaUsage } from './quota.js';
import type { SmsStatus } from './status.js';
import type { DeliveryReport } from './transport.js';

/**
 * What the SMS feature offers other features (users: login and sign-up by code, password reset by
 * code) and hosts (delivery callbacks, quota display). Every method throws SvcError for client
 * mistakes, with the codes of the REST endpoints.
 */
export interface SmsApi {
  /**
   * Sends a verification code (requestSmsCode). Errors: 301 phone, 10022/11040/11041 template,
   * 11012 captcha, 10010 rate limit (with retryAfter seconds), 10011 quota, 11044 provider.
   */
  requestCode(app: Application, phone: string, options?: { template?: string; validateToken?: string }): Promise<{ smsId: number }>;
  /** Sends a notification from a template and its variables (requestSms). Adds 11042 for variables. */
  sendNotification(
    app: Application,
    phone: string,
    template: string,
    content: Readonly<Record<string, unknown>>,
    options?: { validateToken?: string },
  ): Promise<{ smsId: number }>;
  /**
   * Consumes the phone's current code when `code` matches. Throws 301 (phone format), 207 (wrong,
   * used, expired or never sent) or 11043 (too many wrong attempts: the code is dead). Exactly one of
   * concurrent callers with the right code succeeds.
   */
  verifyCode(app: Application, phone: string, code: string): Promise<void>;
  /**
   * Consumes a live code found by the code alone (`PUT /1/resetPasswordBySmsCode/{code}` carries no
   * phone) and returns the phone it was sent to, or null when no live code matches. Live codes are
   * unique per application, so the answer is unambiguous. Callers should throttle this route: the
   * code is the only secret.
   */
  redeemCode(app: Application, code: string): Promise<string | null>;
  /** Delivery state and verified flag of a message of this application, or null when unknown. */
  status(app: Application, smsId: number): Promise<SmsStatus | null>;
  /**
   * Applies a delivery report received outside the transport (e.g. a provider callback route of the
   * host). `transport` defaults to the feature's transport name. Returns false for unknown ids.
   */
  recordDelivery(report: DeliveryReport, transport?: string): Promise<boolean>;
  /** Billed messages used so far and what is left. */
  quota(app: Application): Promise<SmsQuotaUsage>;
}
