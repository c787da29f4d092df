import type { MailMessage, MailTransport } from './port.js';

/** The memory transport: keeps every mail for tests and examples. */
export interface MemoryMailTransport extends MailTransport {
  /** Every accepted message, oldest first. */
  readonly messages: readonly MailMessage[];
  /** The newest message to `to`, if any. */
  last(to: string): MailMessage | undefined;
  /** The first `http(s)://` link in the newest message to `to` (verification and reset flows in tests). */
  lastLink(to: string): string | undefined;
  /** Makes the next `count` sends reject (with `error`, or a generic Error). */
  failNext(count?: number, error?: Error): void;
  clear(): void;
}

const LINK = /https?:\/\/[^\s"'<>]+/;

/**
 * A MailTransport that sends nothing and keeps every message in memory.
 *
 * @example const mail = memoryMailTransport(); ...; const link = mail.lastLink('ann@example.com');
 */
export function memoryMailTransport(): MemoryMailTransport {
  const messages: MailMessage[] = [];
  const failures: Array<Error | undefined> = [];
  const last = (to: string) => messages.findLast((m) => m.to === to);
  return {
    name: 'memory',
    messages,
    async send(message) {
      if (failures.length > 0) throw failures.shift() ?? new Error('memory mail transport: injected failure');
      messages.push({ ...message });
    },
    last,
    lastLink(to) {
      return last(to)?.text.match(LINK)?.[0];
    },
    failNext(count = 1, error) {
      for (let i = 0; i < count; i++) failures.push(error);
    },
    clear() {
      messages.length = 0;
      failures.length = 0;
    },
  };
}
