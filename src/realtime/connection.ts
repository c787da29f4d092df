import type { Clock } from '../core/clock.js';
import { type SvcError, svcError } from '../core/errors.js';
import type { FeatureSocket } from '../features/sockets.js';
import type { EventFrame } from './event-data.js';
import type { InboundAllowance } from './inbound-budget.js';
import type { RealtimeLimits } from './options.js';

/** Each frame counts this many bytes on top of its length against the inbound budgets (so tiny frames are not free). */
export const FRAME_OVERHEAD_BYTES = 64;
/** A connection with this many refused frames within one `STRIKE_WINDOW_MS` is closed (1008). */
export const FLOOD_STRIKES = 10;
export const STRIKE_WINDOW_MS = 10_000;

/**
 * One open socket of either framing: sends under the back-pressure bound, counts client messages
 * per second, remembers when the peer was last heard from (for dead-peer detection) and whether it
 * ever subscribed (a connection that never does is closed after `subscribeTimeoutMs`).
 */
export class RealtimeConnection {
  private lastSeen: number;
  private readonly openedAt: number;
  private subscribed = false;
  private windowStart = 0;
  private windowCount = 0;
  private waiting = 0;
  private strikes = 0;
  private strikeWindowStart = 0;
  private allowance: InboundAllowance | undefined;
  /** Set once the connection is cut or closed; sends are then dropped. */
  closed = false;

  constructor(
    private readonly socket: FeatureSocket,
    private readonly limits: RealtimeLimits,
    private readonly clock: Clock,
    /** Called once when a send finds the peer too far behind (before the socket is terminated). */
    private readonly onSlow: () => void,
  ) {
    this.lastSeen = clock.now();
    this.openedAt = this.lastSeen;
    socket.onPong(() => this.heard());
  }

  /** The connection made a subscription (it then stays open while its peer answers). */
  markSubscribed(): void {
    this.subscribed = true;
  }

  /** Whether `subscribeTimeoutMs` has passed since opening without a first subscription. */
  subscriptionOverdue(): boolean {
    return !this.subscribed && this.clock.now() - this.openedAt >= this.limits.subscribeTimeoutMs;
  }

  /** The peer said something (a message or a pong). */
  heard(): void {
    this.lastSeen = this.clock.now();
  }

  /**
   * Sends one text frame, unless the socket already holds more than `maxBufferedBytes` unsent:
   * then the connection is terminated (a slow consumer is cut, never buffered without bound).
   * Returns whether the frame was queued.
   */
  send(text: string): boolean {
    if (!this.mayQueue()) return false;
    this.socket.send(text);
    return true;
  }

  /** Sends one event frame as {@link send} does; as its UTF-8 bytes where the host takes those (encoded once for every socket). */
  sendEvent(frame: EventFrame): boolean {
    if (!this.mayQueue()) return false;
    if (this.socket.sendUtf8) this.socket.sendUtf8(frame.utf8);
    else this.socket.send(frame.text);
    return true;
  }

  /** Whether a frame may be queued now; cuts a peer past `maxBufferedBytes`. */
  private mayQueue(): boolean {
    if (this.closed || !this.socket.isOpen) return false;
    if (this.socket.bufferedAmount > this.limits.maxBufferedBytes) {
      this.cut();
      return false;
    }
    return true;
  }

  /** The inbound budget this connection's frames draw on from now (the previous one is released). */
  drawOn(allowance: InboundAllowance): void {
    this.allowance?.release();
    this.allowance = allowance;
  }

  /**
   * Decides on one client frame before anything parses it: null admits it (it then counts as waiting
   * until `handled()`), otherwise the coded refusal to send back. Refusals are the per-connection rate
   * (11167), the cap on waiting frames and the shared inbound budget (11167, `realtimeFlooded`); a
   * connection refused `FLOOD_STRIKES` times within `STRIKE_WINDOW_MS` is closed with 1008.
   */
  admit(frameBytes: number): SvcError | null {
    let refusal: SvcError | null = null;
    if (!this.allowMessage()) refusal = svcError('realtimeRateLimited', this.limits.maxMessagesPerSecond);
    else if (this.waiting >= this.limits.maxQueuedMessages) refusal = svcError('realtimeFlooded', `${this.limits.maxQueuedMessages} messages already wait on this connection`);
    else if (this.allowance && !this.allowance.take(frameBytes + FRAME_OVERHEAD_BYTES)) refusal = svcError('realtimeFlooded', 'this client address or application is over its inbound bytes per second');
    if (refusal === null) {
      this.waiting++;
      return null;
    }
    this.strike();
    return refusal;
  }

  /** An admitted frame has been handled (it no longer counts as waiting). */
  handled(): void {
    if (this.waiting > 0) this.waiting--;
  }

  /** The socket is gone: sends stop and the inbound budget is released. */
  gone(): void {
    this.closed = true;
    this.allowance?.release();
  }

  private strike(): void {
    const now = this.clock.now();
    if (now - this.strikeWindowStart >= STRIKE_WINDOW_MS) {
      this.strikeWindowStart = now;
      this.strikes = 0;
    }
    if (++this.strikes >= FLOOD_STRIKES) this.close(1008, 'too many refused messages');
  }

  /** Counts one client message; false when this second's allowance is spent. */
  private allowMessage(): boolean {
    const now = this.clock.now();
    if (now - this.windowStart >= 1000) {
      this.windowStart = now;
      this.windowCount = 0;
    }
    return ++this.windowCount <= this.limits.maxMessagesPerSecond;
  }

  /** Whether the peer has been silent for longer than the idle timeout. */
  isIdle(): boolean {
    return this.clock.now() - this.lastSeen > this.limits.idleTimeoutMs;
  }

  /**
   * A protocol ping; the pong is heard. A host whose sockets cannot ping (a web WebSocket) cannot
   * tell a silent peer from a dead one: the peer then counts as heard, and a dead one goes when its
   * connection closes.
   */
  ping(): void {
    if (!this.closed && !this.socket.ping() && this.socket.isOpen) this.heard();
  }

  /** Closes politely (close frame with a reason of at most 123 bytes). */
  close(code: number, reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.socket.close(code, reason);
  }

  /** Drops the socket at once (slow consumers, dead peers). */
  terminate(): void {
    this.closed = true;
    this.socket.terminate();
  }

  private cut(): void {
    if (this.closed) return;
    this.onSlow();
    this.terminate();
  }
}
