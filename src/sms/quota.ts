import type { Application } from '../app/application.js';
import type { Clock } from '../core/clock.js';
import { svcError } from '../core/errors.js';
import { KV_NO_EXPIRY, type KvStore } from '../kv/port.js';
import { smsKeys } from './keys.js';

/** Usage of an application's SMS quota, in billed messages. */
export interface SmsQuotaUsage {
  readonly used: number;
  readonly remaining: number | 'unlimited';
}

/**
 * The SMS quota: a never-expiring `used` counter per application in the KvStore, compared with
 * `settings.sms.quota` (so raising the setting tops the application up, and every instance sharing
 * the store sees one balance). Reserve-then-refund keeps it exact under races:
 * `reserve` atomically adds the message count and, when that overdraws the quota, takes it back and
 * throws 10011; `refund` takes back a reservation whose send failed. Two racing sends with one message
 * left: exactly one reserves, the other gets 10011, and `used` never exceeds the quota.
 */
export interface SmsQuota {
  reserve(app: Application, messages: number): Promise<void>;
  refund(app: Application, messages: number): Promise<void>;
  usage(app: Application): Promise<SmsQuotaUsage>;
}

export function createSmsQuota(deps: { kv: KvStore; clock: Clock }): SmsQuota {
  const { kv, clock } = deps;
  return {
    async reserve(app, messages) {
      const key = smsKeys.used(app.applicationId);
      const used = await kv.increment(key, messages, KV_NO_EXPIRY, clock.now());
      const quota = app.settings.sms.quota;
      if (quota !== 'unlimited' && used > quota) {
        await kv.increment(key, -messages, KV_NO_EXPIRY, clock.now());
        throw svcError('smsQuotaEmpty');
      }
    },
    async refund(app, messages) {
      await kv.increment(smsKeys.used(app.applicationId), -messages, KV_NO_EXPIRY, clock.now());
    },
    async usage(app) {
      const used = await kv.increment(smsKeys.used(app.applicationId), 0, KV_NO_EXPIRY, clock.now());
      const quota = app.settings.sms.quota;
      return { used, remaining: quota === 'unlimited' ? 'unlimited' : Math.max(0, quota - used) };
    },
  };
}
