import { svcError } from '../core/errors.js';
import type { Json } from '../core/wire-values.js';
import type { RealtimeConnection } from './connection.js';
import type { Subscriber } from './engine.js';
import type { RealtimeCaller } from './realtime-caller.js';
import type { Match, Subscription } from './subscription.js';

/** Turns one delivery into the framing's text frame. */
export type EventFormat = (subscription: Subscription, match: Match, data: { [key: string]: Json }) => string;

/** The subscriptions of one connection, whichever framing it speaks. */
export class RealtimeSession implements Subscriber {
  private readonly byId = new Map<string, Subscription>();

  constructor(
    readonly caller: RealtimeCaller,
    private readonly connection: RealtimeConnection,
    private readonly format: EventFormat,
    private readonly maxSubscriptions: number,
  ) {}

  subscriptions(): Iterable<Subscription> {
    return this.byId.values();
  }

  deliver(subscription: Subscription, match: Match, data: { [key: string]: Json }): void {
    this.connection.send(this.format(subscription, match, data));
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  /** Adds a subscription: 11168 when its id is taken, 11161 past the per-connection limit. */
  add(subscription: Subscription): void {
    if (this.byId.has(subscription.id)) throw svcError('realtimeDuplicateSubscription', subscription.id);
    if (this.byId.size >= this.maxSubscriptions) throw svcError('realtimeTooManySubscriptions', this.maxSubscriptions);
    this.byId.set(subscription.id, subscription);
  }

  /** Removes a subscription; false when there was none of that id. */
  remove(id: string): boolean {
    return this.byId.delete(id);
  }

  clear(): void {
    this.byId.clear();
  }
}
