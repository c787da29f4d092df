import { type SvcError, svcError } from '../core/errors.js';
import { type EventFormat, type EventOutlet, Listener, type ListenerOwner } from './dispatch-list.js';
import type { Subscriber, SubscriptionEngine } from './engine.js';
import type { RealtimeCaller } from './realtime-caller.js';
import type { Subscription } from './subscription.js';

/** A session's connection: its events, the frames the server sends by itself, and its close. */
export interface SessionOutlet extends EventOutlet {
  send(text: string): boolean;
  close(code: number, reason: string): void;
}

/** The close code and reason of a connection whose session ended (policy violation: sign in again). */
export const SESSION_ENDED_CLOSE = { code: 1008, reason: 'session ended: sign in again' } as const;

/**
 * The subscriptions of one connection, whichever framing it speaks, and the cost of its where
 * subscriptions against `maxWhereCost` (docs/realtime.md, "Where budgets and matching"). Each
 * subscription is listed with the engine while held (a {@link Listener}), which is what a change's
 * dispatch walks.
 */
export class RealtimeSession implements Subscriber, ListenerOwner {
  private readonly byId = new Map<string, Listener>();
  private whereCost = 0;
  /** Cleared (its socket closed): a subscription that arrives late is refused, so it holds nothing. */
  private closed = false;

  constructor(
    readonly caller: RealtimeCaller,
    private readonly engine: Pick<SubscriptionEngine, 'listen' | 'unlisten'>,
    private readonly outlet: SessionOutlet,
    private readonly format: EventFormat,
    private readonly maxSubscriptions: number,
    private readonly maxWhereCost = Infinity,
  ) {}

  *subscriptions(): Iterable<Subscription> {
    for (const listener of this.byId.values()) yield listener.subscription;
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  /** Refuses what one more subscription would pass: 11161 past the count, 11166 past the where cost (`whereCost` of a where). */
  assertRoom(whereCost = 0): void {
    if (this.byId.size >= this.maxSubscriptions) throw svcError('realtimeTooManySubscriptions', this.maxSubscriptions);
    if (this.whereCost + whereCost > this.maxWhereCost) {
      throw svcError('realtimeWhereOverBudget', `this connection's where subscriptions would cost ${this.whereCost + whereCost}, over maxWhereCostPerConnection ${this.maxWhereCost}`);
    }
  }

  /**
   * Adds a subscription: 11168 when its id is taken, 11161 or 11166 past the per-connection limits
   * (a refused where subscription is released).
   */
  add(subscription: Subscription): void {
    try {
      if (this.closed) throw svcError('realtimeBadMessage', 'the connection is closed');
      if (this.byId.has(subscription.id)) throw svcError('realtimeDuplicateSubscription', subscription.id);
      this.assertRoom(subscription.kind === 'where' ? subscription.cost : 0);
    } catch (error) {
      if (subscription.kind === 'where') subscription.release();
      throw error;
    }
    const listener = new Listener(subscription, this.caller, this.outlet, this.format, this);
    this.byId.set(subscription.id, listener);
    if (subscription.kind === 'where') this.whereCost += subscription.cost;
    this.engine.listen(listener);
  }

  /** Removes a subscription (a where gives back its shared where); false when there was none of that id. */
  remove(id: string): boolean {
    const listener = this.byId.get(id);
    if (!listener) return false;
    this.byId.delete(id);
    this.engine.unlisten(listener);
    const { subscription } = listener;
    if (subscription.kind === 'where') {
      this.whereCost -= subscription.cost;
      subscription.release();
    }
    return true;
  }

  clear(): void {
    this.closed = true;
    for (const id of [...this.byId.keys()]) this.remove(id);
  }

  /** Removes `listener`'s subscription (if still held) and sends the client `error` for it. */
  drop(listener: Listener, error: SvcError): void {
    const { id } = listener.subscription;
    if (this.byId.get(id) !== listener) return;
    this.remove(id);
    this.outlet.send(this.format.error(listener.subscription, error));
  }

  /**
   * The session the connection signed in with ended (revoked, expired): every subscription goes at
   * once, the client is sent 211 and the connection is closed ({@link SESSION_ENDED_CLOSE}).
   */
  sessionEnded(): void {
    if (this.closed) return;
    this.clear();
    this.outlet.send(this.format.error(null, svcError('sessionInvalid')));
    this.outlet.close(SESSION_ENDED_CLOSE.code, SESSION_ENDED_CLOSE.reason);
  }
}
