import type { Clock } from '../core/clock.js';
import type { FeatureSocket } from '../features/sockets.js';
import type { RealtimeLimits } from './options.js';

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
    if (this.closed) return false;
    if (!this.socket.isOpen) return false;
    if (this.socket.bufferedAmount > this.limits.maxBufferedBytes) {
      this.cut();
      return false;
    }
    this.socket.send(text);
    return true;
  }

  /** Counts one client message; false when this second's allowance is spent. */
  allowMessage(): boolean {
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
