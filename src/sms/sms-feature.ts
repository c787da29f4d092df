import { CAPTCHA } from '../captcha/index.js';
import { type FeatureDefinition, featureKey } from '../features/contract.js';
import { type MetricsPort, noMetrics } from '../core/metrics.js';
import { configError } from '../core/errors.js';
import { memoryCounterStore } from '../counters/memory-counter-store.js';
import type { CounterStore } from '../counters/port.js';
import type { Application } from '../app/application.js';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import type { Random } from '../core/random.js';
import type { KvStore } from '../kv/port.js';
import { createCodeHasher } from './code-hasher.js';
import { createCodeBook } from './codes.js';
import { type PhoneValidator, assertPhone, mainlandPhoneValidator } from './phone.js';
import { createSmsQuota } from './quota.js';
import { smsRoutes } from './routes.js';
import { type CaptchaGate, createSmsSender } from './sender.js';
import type { SmsApi } from './sms-api.js';
import { createSmsStatusStore } from './status.js';
import { fillTemplate } from './template-text.js';
import { assertSmsSettings, resolveTemplate } from './templates.js';
import type { SmsTransport } from './transport.js';

export interface SmsFeatureOptions {
  /** Where messages go: `memorySmsTransport()`, `consoleSmsTransport()`, `tencentSmsTransport({...})` or yours. */
  transport: SmsTransport;
  /**
   * Per-number rate-limit counters. Default: in memory (one process; limits reset on restart). Use
   * `sqliteCounterStore` (or a Redis store) to keep limits across restarts and instances.
   */
  counters?: CounterStore;
  /** Accepted phone numbers (301 otherwise). Default: 11-digit mainland numbers; `e164PhoneValidator` for international. */
  phoneValidator?: PhoneValidator;
  /** HMAC key of stored code digests. Default: each application's master key. */
  codeHasherKey?: string | Uint8Array;
  /** The captcha feature's validate_token check; required when a template has `captchaRequired`. */
  captcha?: CaptchaGate;
  /** How long status records (querySms) are kept after their last change, in ms (default 7 days). */
  statusRetentionMs?: number;
}

/** The SMS feature: its routes plus the API other features use. */
/** What the SMS feature takes from the service's feature context. */
export interface SmsFeatureContext {
  /** Applications by id (their SMS settings are checked at start). */
  readonly applications: ReadonlyMap<string, Application>;
  /** Codes, delivery status and send records. */
  readonly kv: KvStore;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly random: Random;
  /** Where sent and failed messages are counted, and the quota read from (none by default). */
  readonly metrics?: MetricsPort;
}

export interface SmsFeature {
  readonly name: 'sms';
  readonly routes: ReturnType<typeof smsRoutes>;
  readonly api: SmsApi;
  /** Unsubscribes from the transport and closes it and the counter store. */
  close(): Promise<void>;
}

const WEEK_MS = 7 * 24 * 3_600_000;

/**
 * Creates the SMS feature: requestSmsCode, verifySmsCode (both shapes), requestSms and querySms, and
 * the `api` the users feature calls (`verifyCode`, `redeemCode`). Checks every application's SMS
 * settings now and throws a `[svcbase]` error on a mistake. On `close()` it unsubscribes from the
 * transport and closes the transport and counter store.
 *
 * @example
 * createService({ ..., features: [(ctx) => createSmsFeature(ctx, { transport: memorySmsTransport() })] })
 */
export function createSmsFeature(ctx: SmsFeatureContext, options: SmsFeatureOptions): SmsFeature {
  for (const app of ctx.applications.values()) {
    assertSmsSettings(app);
    if (!options.captcha && app.settings.sms.templates.some((t) => t.captchaRequired)) {
      throw configError('sms', `application '${app.applicationId}' has a captchaRequired template but no captcha option was given`);
    }
  }
  const { kv, clock, logger, random } = ctx;
  const transport = options.transport;
  const counters = options.counters ?? memoryCounterStore();
  const phoneValidator = options.phoneValidator ?? mainlandPhoneValidator;
  const status = createSmsStatusStore({ kv, clock, logger, retentionMs: options.statusRetentionMs ?? WEEK_MS });
  const quota = createSmsQuota({ kv, clock });
  const codes = createCodeBook({ kv, clock, random, hasher: createCodeHasher(options.codeHasherKey), status });
  const metrics = ctx.metrics ?? noMetrics;
  const send = createSmsSender({ kv, counters, clock, logger, transport, quota, status, captcha: options.captcha, metrics });

  const api: SmsApi = {
    async requestCode(app, phone, opts = {}) {
      assertPhone(phone, phoneValidator);
      const template = resolveTemplate(app, opts.template, 'code');
      const smsId = await send({ app, phone, template, validateToken: opts.validateToken, prepare: (id) => codes.prepare(app, phone, template, id) });
      return { smsId };
    },
    async sendNotification(app, phone, templateName, content, opts = {}) {
      assertPhone(phone, phoneValidator);
      const template = resolveTemplate(app, templateName, 'notification');
      const filled = fillTemplate(template.text, content);
      const noop = async () => {};
      const smsId = await send({ app, phone, template, validateToken: opts.validateToken, prepare: async () => ({ ...filled, commit: noop, discard: noop }) });
      return { smsId };
    },
    async verifyCode(app, phone, code) {
      assertPhone(phone, phoneValidator);
      await codes.verify(app, phone, code);
    },
    redeemCode: (app, code) => codes.redeem(app, code),
    status: (app, smsId) => status.read(app.applicationId, smsId),
    recordDelivery: (report, name) => status.report(name ?? transport.name, report),
    quota: (app) => quota.usage(app),
  };

  const removeGauges = metrics.gauges({
    name: 'svcbase_sms_quota_used',
    help: 'Billed SMS messages counted against the quota, by application (read when asked).',
    read: () => Promise.all([...ctx.applications.values()].map(async (app) => ({ app: app.applicationId, value: (await quota.usage(app)).used }))),
  });
  const removeLimit = metrics.gauges({
    name: 'svcbase_sms_quota_limit',
    help: "The applications' SMS quota in billed messages (absent when unlimited).",
    sampled: true,
    read: () => [...ctx.applications.values()].flatMap((app) => (app.settings.sms.quota === 'unlimited' ? [] : [{ app: app.applicationId, value: app.settings.sms.quota }])),
  });
  const unsubscribe = transport.onDeliveryReport?.((report) => {
    status.report(transport.name, report).catch((error: unknown) => {
      logger.error('sms delivery report failed', { providerId: report.providerId, error: error instanceof Error ? error.message : String(error) });
    });
  });

  return {
    name: 'sms',
    routes: smsRoutes(api),
    api,
    async close() {
      removeGauges();
      removeLimit();
      unsubscribe?.();
      await transport.close?.();
      await counters.close?.();
    },
  };
}

/** The key of the SMS feature's API: `ctx.find(SMS)`. */
export const SMS = featureKey<SmsApi>('sms');

/**
 * SMS as a feature definition (after the captcha feature, whose validate_tokens gate captcha-required
 * templates); counters and the captcha gate come from the service unless given.
 */
export function smsFeature(options: SmsFeatureOptions): FeatureDefinition<SmsApi> {
  return {
    id: SMS.id,
    after: [CAPTCHA.id],
    init(ctx) {
      const feature = createSmsFeature(ctx, { ...options, counters: options.counters ?? ctx.counters, captcha: options.captcha ?? ctx.find(CAPTCHA) });
      return { api: feature.api, routes: feature.routes, close: () => feature.close() };
    },
  };
}
