import { createRequire } from 'node:module';
import { configError } from '../core/errors.js';
import type { MailTransport } from './port.js';

/** What the SMTP transport reads back from nodemailer's `sendMail`. */
export interface SentInfoShape {
  readonly rejected?: ReadonlyArray<string | { address: string }>;
}

/** The few members of a nodemailer transporter used, described by shape (nodemailer is optional). */
export interface MailerTransporterShape {
  sendMail(mail: { from?: string; to: string; subject: string; text: string; html?: string }): Promise<SentInfoShape>;
  close(): void;
}

/** The member of the `nodemailer` module used. */
export interface NodemailerShape {
  createTransport(options: object): MailerTransporterShape;
}

/** Options of {@link smtpMailTransport}. */
export interface SmtpMailOptions {
  /** SMTP host (e.g. `smtp.example.com`). */
  readonly host: string;
  /** Port (default 587; 465 implies `secure`). */
  readonly port?: number;
  /** Implicit TLS from the start (default: port 465). Otherwise STARTTLS is used when offered. */
  readonly secure?: boolean;
  /** Never upgrade with STARTTLS (local test servers only). */
  readonly ignoreTLS?: boolean;
  /** Refuse to send unless STARTTLS succeeds. */
  readonly requireTLS?: boolean;
  readonly auth?: { readonly user: string; readonly pass: string };
  /** Default sender when a message has no `from`. */
  readonly from: string;
  /** Extra nodemailer SMTP options (pool, tls, timeouts), passed through unchanged. */
  readonly extra?: Readonly<Record<string, unknown>>;
  /** The nodemailer module to use (default: loaded lazily from the host's dependencies). */
  readonly nodemailer?: NodemailerShape;
}

/**
 * Sends mail over SMTP with nodemailer, an optional peer dependency loaded on the first send (install
 * it with `npm install nodemailer`). Rejects when the server refuses the message or the recipient.
 *
 * @example smtpMailTransport({ host: 'smtp.example.com', port: 587, auth: { user, pass }, from: 'App <no-reply@example.com>' })
 */
export function smtpMailTransport(options: SmtpMailOptions): MailTransport {
  if (typeof options.host !== 'string' || options.host === '') throw configError('mail', 'smtpMailTransport needs a host');
  if (typeof options.from !== 'string' || options.from === '') throw configError('mail', 'smtpMailTransport needs a default from address');
  let transporter: MailerTransporterShape | undefined;
  const open = (): MailerTransporterShape => {
    if (transporter) return transporter;
    const mailer = options.nodemailer ?? loadNodemailer();
    const port = options.port ?? 587;
    transporter = mailer.createTransport({
      ...options.extra,
      host: options.host,
      port,
      secure: options.secure ?? port === 465,
      ...(options.ignoreTLS !== undefined ? { ignoreTLS: options.ignoreTLS } : {}),
      ...(options.requireTLS !== undefined ? { requireTLS: options.requireTLS } : {}),
      ...(options.auth ? { auth: { user: options.auth.user, pass: options.auth.pass } } : {}),
    });
    return transporter;
  };
  return {
    name: 'smtp',
    async send(message) {
      const info = await open().sendMail({
        from: message.from ?? options.from,
        to: message.to,
        subject: message.subject,
        text: message.text,
        ...(message.html !== undefined ? { html: message.html } : {}),
      });
      if (info.rejected && info.rejected.length > 0) throw new Error(`[svcbase] [mail] the SMTP server rejected the recipient`);
    },
    close() {
      transporter?.close();
      transporter = undefined;
    },
  };
}

function loadNodemailer(): NodemailerShape {
  let mod: unknown;
  try {
    mod = createRequire(import.meta.url)('nodemailer');
  } catch (cause) {
    const error = configError('mail', 'the SMTP transport needs the optional peer dependency nodemailer: run `npm install nodemailer`');
    error.cause = cause;
    throw error;
  }
  if (typeof (mod as Partial<NodemailerShape> | null)?.createTransport !== 'function') {
    throw configError('mail', 'nodemailer loaded but does not export createTransport');
  }
  return mod as NodemailerShape;
}
