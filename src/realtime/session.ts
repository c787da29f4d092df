import { svcError } from '../core/errors.js';
import { type EventFormat, type EventOutlet, Listener } from './dispatch-list.js';
import type { Subscriber, SubscriptionEngine } from './engine.js';
import type { RealtimeCaller } from './realtime-caller.js';
import type { Subscription } from './subscription.js';

/**
 * The subscriptions of one connection, whichever framing it speaks, and the cost of its where
 * subscriptions against `maxWhereCost` (docs/realtime.md, "Where budgets and matching"). Each
 * subscription is listed with the engine while held (a {@link Listener}), which is what a change's
 * dispatch walks.
 */
export class RealtimeSession implements Subscriber {
  private readonly byId = new Map<string, Listener>();
  private whereCost = 0;
  /** Cleared (its socket closed): a subscription that arrives late is refused, so it holds nothing. */
  private closed = false;

  constructor(
    readonly caller: RealtimeCaller,
    private readonly engine: Pick<SubscriptionEngine, 'listen' | 'unlisten'>,
    private readonly outlet: EventOutlet,
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
    const listener = new Listener(subscription, this.caller, this.outlet, this.format);
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
}
