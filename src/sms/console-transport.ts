import type { SmsTransport } from './transport.js';

export interface ConsoleSmsOptions {
  /** Where each message line goes. Default: the service logger at info level. */
  write?: (line: string) => void;
}

/**
 * A development transport: "sends" by writing one line per message (recipient, template, signature
 * and text, so the code is readable), and accepts every message. Provider ids are `console-1`, ...
 * svcbase never writes to the console itself: pass `write: (line) => process.stdout.write(line + '\n')`
 * to see messages on a terminal.
 *
 * @example createSmsFeature(ctx, { transport: consoleSmsTransport() })
 */
export function consoleSmsTransport(options: ConsoleSmsOptions = {}): SmsTransport {
  let counter = 0;
  return {
    name: 'console',
    async send(message, context) {
      const providerId = `console-${++counter}`;
      const line = `SMS ${providerId} to ${message.to} [${message.applicationId}/${message.templateName}] ${message.signature}${message.text}`;
      if (options.write) options.write(line);
      else context?.logger.info(line, { smsId: message.smsId });
      return { providerId };
    },
  };
}
