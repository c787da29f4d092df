import { svcError } from '../core/errors.js';
import type { DeliveryReport, SmsMessage, SmsSendResult, SmsTransport } from './transport.js';

/** A message the memory transport accepted. */
export interface CapturedSms extends SmsMessage {
  readonly providerId: string;
}

/** The memory transport: captures messages for tests and examples. */
export interface MemorySmsTransport extends SmsTransport {
  /** Every accepted message, oldest first. */
  readonly messages: readonly CapturedSms[];
  /** The newest message to `to`, if any. */
  last(to: string): CapturedSms | undefined;
  /** The 6-digit code in the newest message to `to` (verification flows in tests). */
  lastCode(to: string): string | undefined;
  /** Makes the next `count` sends fail with 11044 (`error` overrides what is thrown). */
  failNext(count?: number, error?: Error): void;
  /** Emits a delivery report, as a provider callback would. */
  deliver(providerId: string, state: 'SUCCESS' | 'FAIL'): void;
  clear(): void;
}

/**
 * An SmsTransport that sends nothing and keeps every message in memory. Provider ids are `mem-1`,
 * `mem-2`, ... Synchronous inside: no timers, so tests on a fake clock need no waiting.
 *
 * @example const sms = memorySmsTransport(); ...; const code = sms.lastCode('13800138000');
 */
export function memorySmsTransport(): MemorySmsTransport {
  const messages: CapturedSms[] = [];
  const listeners = new Set<(report: DeliveryReport) => void>();
  let failures: Array<Error | undefined> = [];
  let counter = 0;
  const last = (to: string) => messages.findLast((m) => m.to === to);
  return {
    name: 'memory',
    messages,
    async send(message): Promise<SmsSendResult> {
      if (failures.length > 0) throw failures.shift() ?? svcError('smsProviderFailed', 'memory transport: injected failure');
      const providerId = `mem-${++counter}`;
      messages.push({ ...message, providerId });
      return { providerId };
    },
    onDeliveryReport(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    last,
    lastCode(to) {
      return last(to)?.text.match(/\b\d{6}\b/)?.[0];
    },
    failNext(count = 1, error) {
      for (let i = 0; i < count; i++) failures.push(error);
    },
    deliver(providerId, state) {
      for (const listener of listeners) listener({ providerId, state });
    },
    clear() {
      messages.length = 0;
      failures = [];
    },
  };
}
