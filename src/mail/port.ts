/** One mail to send. Texts are final: transports do not template. */
export interface MailMessage {
  /** Recipient address. */
  readonly to: string;
  readonly subject: string;
  /** The plain-text part. */
  readonly text: string;
  /** An optional HTML part. */
  readonly html?: string;
  /** Sender address; transports fall back to their configured default. */
  readonly from?: string;
}

/**
 * The mail port: the users feature sends verification and password-reset links through it.
 * `send` resolves once the transport accepted the message and rejects when it did not; it never
 * retries by itself.
 *
 * Built in: `memoryMailTransport()` (tests read links from it), `consoleMailTransport({ write })`
 * (development) and `smtpMailTransport(options)` (nodemailer, an optional peer dependency).
 */
export interface MailTransport {
  readonly name: string;
  send(message: MailMessage): Promise<void>;
  /** Releases connections (called by the users feature's close). */
  close?(): Promise<void> | void;
}
