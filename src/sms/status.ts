import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import type { KvStore } from '../kv/port.js';
import { smsKeys } from './keys.js';
import type { DeliveryReport, SmsState } from './transport.js';

/** What `GET /1/querySms/:smsId` reports. */
export interface SmsStatus {
  readonly state: SmsState;
  /** The code of this message was verified (always false for notifications). */
  readonly verified: boolean;
}

/**
 * Status records of sent messages, kept `retentionMs` after the last change. State and the verified
 * flag live under separate keys, so a delivery report and a verification never overwrite each other.
 */
export interface SmsStatusStore {
  sent(appId: string, smsId: number, transport: string, providerId: string, state: SmsState): Promise<void>;
  markVerified(appId: string, smsId: number): Promise<void>;
  /** Applies a delivery report; false when the provider id is unknown (or expired). */
  report(transport: string, report: DeliveryReport): Promise<boolean>;
  read(appId: string, smsId: number): Promise<SmsStatus | null>;
}

const STATES: ReadonlySet<string> = new Set(['SENDING', 'SUCCESS', 'FAIL']);

export function createSmsStatusStore(deps: { kv: KvStore; clock: Clock; logger: Logger; retentionMs: number }): SmsStatusStore {
  const { kv, clock, retentionMs } = deps;
  return {
    async sent(appId, smsId, transport, providerId, state) {
      const until = clock.now() + retentionMs;
      await kv.put(smsKeys.state(appId, smsId), state, until);
      await kv.put(smsKeys.provider(transport, providerId), `${appId}\n${smsId}`, until);
    },
    async markVerified(appId, smsId) {
      await kv.put(smsKeys.verified(appId, smsId), '1', clock.now() + retentionMs);
    },
    async report(transport, report) {
      const now = clock.now();
      const target = await kv.get(smsKeys.provider(transport, report.providerId), now);
      if (target === null || !STATES.has(report.state)) {
        deps.logger.debug('sms delivery report ignored', { transport, providerId: report.providerId, state: report.state });
        return false;
      }
      const [appId, smsId] = target.split('\n') as [string, string];
      await kv.put(smsKeys.state(appId, Number(smsId)), report.state, now + retentionMs);
      return true;
    },
    async read(appId, smsId) {
      const now = clock.now();
      const state = await kv.get(smsKeys.state(appId, smsId), now);
      if (state === null || !STATES.has(state)) return null;
      const verified = (await kv.get(smsKeys.verified(appId, smsId), now)) !== null;
      return { state: state as SmsState, verified };
    },
  };
}
