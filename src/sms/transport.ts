import type { Logger } from '../core/logger.js';
import type { Awaitable } from '../storage/port.js';

/** A filled message handed to a transport. */
export interface SmsMessage {
  /** The recipient as the application's phone validator accepted it (`13800138000`, `+447700900123`). */
  readonly to: string;
  /** The filled template text, without the signature. */
  readonly text: string;
  /** The signature of the application (`【svcb】`); providers usually add their registered one. */
  readonly signature: string;
  /** Name of the svcbase template (map it to a provider template id in the transport's options). */
  readonly templateName: string;
  /** Variable values as strings, in order of first appearance in the template (positional providers). */
  readonly variables: Readonly<Record<string, string>>;
  readonly applicationId: string;
  /** The smsId the client will receive. */
  readonly smsId: number;
}

/** Delivery state of a message: accepted by the provider, delivered, or failed. */
export type SmsState = 'SENDING' | 'SUCCESS' | 'FAIL';

/** What a transport returns once the provider accepted the message. */
export interface SmsSendResult {
  /** The provider's id of the message; delivery reports refer to it. */
  readonly providerId: string;
  /** Initial state, `SENDING` unless the provider already confirmed delivery. */
  readonly state?: SmsState;
}

/** A delivery report: the provider's final word on one message. */
export interface DeliveryReport {
  readonly providerId: string;
  readonly state: 'SUCCESS' | 'FAIL';
  /** The provider's own status text, for logs. */
  readonly detail?: string;
}

/** Per-call context the feature passes to `send`. */
export interface SmsSendContext {
  /** The service logger (transports log here, never to the console). */
  readonly logger: Logger;
}

/**
 * The SMS transport port. Contract:
 * - `send` resolves only when the provider accepted the message, and rejects otherwise (an SvcError
 *   `smsProviderFailed` 11044 with the provider's code, or any error: the feature maps it to 11044).
 *   A rejection means "not sent": the code is discarded and the quota is not charged.
 * - Transports enforce their own timeout and reject when it elapses.
 * - Delivery reports: a transport that learns them (callbacks, polling) calls the listeners given to
 *   `onDeliveryReport`; hosts receiving provider callbacks on their own route call the feature API's
 *   `recordDelivery` instead.
 */
export interface SmsTransport {
  /** Short id (`memory`, `console`, `tencent`); scopes provider ids in the store. */
  readonly name: string;
  send(message: SmsMessage, context?: SmsSendContext): Promise<SmsSendResult>;
  /** Subscribes to delivery reports; returns the unsubscribe function. */
  onDeliveryReport?(listener: (report: DeliveryReport) => void): () => void;
  close?(): Awaitable<void>;
}
