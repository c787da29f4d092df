import type { MailTransport } from './port.js';

/** Options of {@link consoleMailTransport}. */
export interface ConsoleMailOptions {
  /** Receives each line of each mail (e.g. `(line) => process.stdout.write(line + '\n')`). */
  readonly write: (line: string) => void;
}

/**
 * A development transport: writes each mail (headers, then the text part) through the injected line
 * sink instead of sending it. svcbase never writes to the console by itself.
 *
 * @example consoleMailTransport({ write: (line) => console.log(line) })
 */
export function consoleMailTransport(options: ConsoleMailOptions): MailTransport {
  return {
    name: 'console',
    async send(message) {
      options.write(`--- mail to ${message.to}${message.from ? ` from ${message.from}` : ''}`);
      options.write(`Subject: ${message.subject}`);
      for (const line of message.text.split(/\r?\n/)) options.write(line);
      options.write('--- end of mail');
    },
  };
}
