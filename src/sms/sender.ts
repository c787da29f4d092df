import type { MetricsPort } from '../core/metrics.js';
import type { Application, SmsTemplate } from '../app/application.js';
import type { Clock } from '../core/clock.js';
import { isSvcError, retryError, svcError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import { HOUR_MS, DAY_MS, MINUTE_MS } from '../counters/rate-limiter.js';
import type { CounterStore, RateWindow } from '../counters/port.js';
import { KV_NO_EXPIRY, type KvStore } from '../kv/port.js';
import { countedLength, messageCount } from './billing.js';
import { smsKeys } from './keys.js';
import type { SmsQuota } from './quota.js';
import type { SmsStatusStore } from './status.js';
import type { SmsSendResult, SmsTransport } from './transport.js';

/** Checks a captcha validate_token: true once for a valid, unused token of this application. */
export interface CaptchaGate {
  consumeValidateToken(app: Application, token: string): Promise<boolean>;
}

/** A message about to be sent: its text, plus how to keep or undo what preparing it reserved. */
export interface PreparedSms {
  readonly text: string;
  readonly variables: Readonly<Record<string, string>>;
  /** Runs after the provider accepted the message (store the code). */
  commit(): Promise<void>;
  /** Runs when the message is not sent (free the reserved code). */
  discard(): Promise<void>;
}

export interface SendRequest {
  readonly app: Application;
  readonly phone: string;
  readonly template: SmsTemplate;
  readonly validateToken: string | undefined;
  /** Builds the message once its smsId is known. */
  prepare(smsId: number): Promise<PreparedSms>;
}

export interface SenderDeps {
  readonly kv: KvStore;
  readonly counters: CounterStore;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly transport: SmsTransport;
  readonly quota: SmsQuota;
  readonly status: SmsStatusStore;
  readonly captcha: CaptchaGate | undefined;
  /** Counts each message handed to the transport or refused by it, by template. */
  readonly metrics?: MetricsPort;
}

/** The per-number windows of an application: per minute, hour and 24 hours (sliding). */
export function smsWindows(app: Application): RateWindow[] {
  const { perMinute, perHour, perDay } = app.settings.sms.limits;
  return [
    { limit: perMinute, windowMs: MINUTE_MS },
    { limit: perHour, windowMs: HOUR_MS },
    { limit: perDay, windowMs: DAY_MS },
  ];
}

/**
 * The send pipeline shared by code and notification SMS, in this order: captcha gate (11012) ->
 * per-number rate limit (10010, counted even if a later step fails: the limit protects the recipient)
 * -> smsId -> prepare -> quota reservation (10011, nothing sent) -> transport (11044 on failure or
 * timeout: prepared state discarded, quota refunded) -> commit -> status SENDING. Returns the smsId.
 */
export function createSmsSender(deps: SenderDeps): (request: SendRequest) => Promise<number> {
  const { kv, counters, clock, transport, quota, status, logger } = deps;
  return async (request) => {
    const { app, phone, template } = request;
    if (template.captchaRequired) {
      const token = request.validateToken;
      if (!deps.captcha || !token || !(await deps.captcha.consumeValidateToken(app, token))) throw svcError('validateTokenInvalid');
    }
    const decision = await counters.consume(smsKeys.rate(app.applicationId, phone), smsWindows(app), clock.now());
    if (!decision.allowed) throw retryError('smsRateLimited', decision.retryAfterMs, phone);
    const smsId = await kv.increment(smsKeys.sequence(), 1, KV_NO_EXPIRY, clock.now());
    const prepared = await request.prepare(smsId);
    const messages = messageCount(countedLength(prepared.text, app.settings.sms.signature));
    try {
      await quota.reserve(app, messages);
    } catch (error) {
      await prepared.discard();
      throw error;
    }
    let result: SmsSendResult;
    try {
      result = await transport.send(
        { to: phone, text: prepared.text, signature: app.settings.sms.signature, templateName: template.name, variables: prepared.variables, applicationId: app.applicationId, smsId },
        { logger },
      );
    } catch (error) {
      await quota.refund(app, messages);
      await prepared.discard();
      deps.metrics?.sms(app.applicationId, template.name, false);
      logger.warn('sms send failed', { transport: transport.name, smsId, error: error instanceof Error ? error.message : String(error) });
      if (isSvcError(error)) throw error;
      throw svcError('smsProviderFailed', `${transport.name}: ${error instanceof Error ? error.message : String(error)}`);
    }
    deps.metrics?.sms(app.applicationId, template.name, true);
    await prepared.commit();
    await status.sent(app.applicationId, smsId, transport.name, result.providerId, result.state ?? 'SENDING');
    return smsId;
  };
}
