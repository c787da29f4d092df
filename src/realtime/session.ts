import { svcError } from '../core/errors.js';
import type { EventData } from './event-data.js';
import type { RealtimeConnection } from './connection.js';
import type { Subscriber } from './engine.js';
import type { RealtimeCaller } from './realtime-caller.js';
import type { Match, Subscription } from './subscription.js';

/** Turns one delivery into the framing's text frame. */
export type EventFormat = (subscription: Subscription, match: Match, data: EventData) => string;

/**
 * The subscriptions of one connection, whichever framing it speaks, and the cost of its where
 * subscriptions against `maxWhereCost` (docs/realtime.md, "Where budgets and matching").
 */
export class RealtimeSession implements Subscriber {
  private readonly byId = new Map<string, Subscription>();
  private whereCost = 0;
  /** Cleared (its socket closed): a subscription that arrives late is refused, so it holds nothing. */
  private closed = false;

  constructor(
    readonly caller: RealtimeCaller,
    private readonly connection: RealtimeConnection,
    private readonly format: EventFormat,
    private readonly maxSubscriptions: number,
    private readonly maxWhereCost = Infinity,
  ) {}

  subscriptions(): Iterable<Subscription> {
    return this.byId.values();
  }

  deliver(subscription: Subscription, match: Match, data: EventData): void {
    this.connection.send(this.format(subscription, match, data));
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
    this.byId.set(subscription.id, subscription);
    if (subscription.kind === 'where') this.whereCost += subscription.cost;
  }

  /** Removes a subscription (a where gives back its shared where); false when there was none of that id. */
  remove(id: string): boolean {
    const subscription = this.byId.get(id);
    if (!subscription) return false;
    this.byId.delete(id);
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
