/**
 * Mail: the MailTransport port and its built-in transports (memory, console, SMTP via nodemailer).
 */
export type { MailMessage, MailTransport } from './port.js';
export { type MemoryMailTransport, memoryMailTransport } from './memory-transport.js';
export { type ConsoleMailOptions, consoleMailTransport } from './console-transport.js';
export {
  type MailerTransporterShape,
  type NodemailerShape,
  type SentInfoShape,
  type SmtpMailOptions,
  smtpMailTransport,
} from './smtp-transport.js';
