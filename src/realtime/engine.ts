import type { Application } from '../app/application.js';
import type { Logger } from '../core/logger.js';
import type { StoredRecord } from '../core/values.js';
import { type Json, encodeRecord } from '../core/wire-values.js';
import type { EventBus } from '../events/port.js';
import type { Awaitable, StorageAdapter } from '../storage/port.js';
import type { WriteEvent } from '../storage/write-events.js';
import type { TableAccess } from '../access/table-access.js';
import type { TableRules } from '../access/table-rules.js';
import { type RealtimeChange, changeChannel, decodeChange, encodeChange } from './change.js';
import type { RealtimeCaller } from './realtime-caller.js';
import { type Match, type Subscription, matchChange } from './subscription.js';
import { CompiledWhereSubscription } from './where-subscription.js';

/** One connection as the engine sees it: who it is, what it subscribed to, how to reach it. */
export interface Subscriber {
  readonly caller: RealtimeCaller;
  subscriptions(): Iterable<Subscription>;
  /** Sends one event; `data` is the record encoded as a REST read (computed once per change). */
  deliver(subscription: Subscription, match: Match, data: { [key: string]: Json }): void;
}

/** One connection as `GET /1/realtime/connections` lists it. */
export interface ConnectionSummary {
  /** The signed-in user's objectId, or null (application keys, or the SDK's socket). */
  readonly user: string | null;
  readonly master: boolean;
  readonly subscriptions: ReadonlyArray<{ readonly id: string; readonly table: string; readonly action: string; readonly objectId?: string }>;
}

export interface EngineDeps {
  readonly bus: EventBus;
  readonly storage: StorageAdapter;
  readonly logger: Logger;
  /** The declared table rules: which tables realtime carries, and their secret columns (removed before publishing). */
  readonly tables: TableRules;
}

/**
 * The subscription engine both framings share. Writes go out on the bus (`publish`); what comes back
 * from the bus, this instance's own writes included, is matched against this instance's subscribers
 * and delivered, so each subscriber gets each change exactly once whichever instance wrote it.
 * Changes of one application are dispatched in bus order.
 */
export class SubscriptionEngine {
  private readonly subscribers = new Map<string, Set<Subscriber>>();
  private readonly busSubscriptions = new Map<string, Promise<() => Awaitable<void>>>();
  private readonly queues = new Map<string, Promise<void>>();
  private closed = false;

  constructor(private readonly deps: EngineDeps) {}

  /** The write observer: publishes a committed change of an application with realtime on. */
  publish(app: Application, event: WriteEvent): void {
    if (this.closed) return;
    const message = encodeChange(event, this.deps.tables.ruleOf(event.className));
    if (message === null) return;
    try {
      const published = this.deps.bus.publish(changeChannel(app.applicationId), message);
      if (published instanceof Promise) published.catch((error: unknown) => this.failed('publish', error));
    } catch (error) {
      this.failed('publish', error);
    }
  }

  /** Starts delivering to `subscriber`; resolves once its application's bus channel is listened to. */
  async attach(subscriber: Subscriber): Promise<void> {
    const id = subscriber.caller.app.applicationId;
    let set = this.subscribers.get(id);
    if (!set) this.subscribers.set(id, (set = new Set()));
    set.add(subscriber);
    let listening = this.busSubscriptions.get(id);
    if (!listening) {
      listening = Promise.resolve(this.deps.bus.subscribe(changeChannel(id), (message) => this.receive(id, message)));
      this.busSubscriptions.set(id, listening);
      listening.catch(() => this.busSubscriptions.delete(id));
    }
    await listening;
  }

  detach(subscriber: Subscriber): void {
    this.subscribers.get(subscriber.caller.app.applicationId)?.delete(subscriber);
  }

  /** Connections of an application on this instance. */
  count(applicationId: string): number {
    return this.subscribers.get(applicationId)?.size ?? 0;
  }

  /** What an operator sees of an application's connections on this instance: who, and what each listens to. */
  describe(applicationId: string): ConnectionSummary[] {
    return [...(this.subscribers.get(applicationId) ?? [])].map((subscriber) => ({
      user: subscriber.caller.user?.objectId ?? null,
      master: subscriber.caller.isMaster,
      subscriptions: [...subscriber.subscriptions()].map((subscription) =>
        subscription.kind === 'action'
          ? { id: subscription.id, table: subscription.className, action: subscription.action, ...(subscription.objectId ? { objectId: subscription.objectId } : {}) }
          : { id: subscription.id, table: subscription.className, action: 'where' },
      ),
    }));
  }

  async close(): Promise<void> {
    this.closed = true;
    this.subscribers.clear();
    const listening = [...this.busSubscriptions.values()];
    this.busSubscriptions.clear();
    for (const subscription of listening) {
      try {
        await (await subscription)();
      } catch {
        // The bus may already be gone; nothing is left to stop.
      }
    }
  }

  private receive(applicationId: string, message: string): void {
    if (this.closed) return;
    const change = decodeChange(applicationId, message);
    if (!change) {
      this.deps.logger.warn('realtime: malformed bus message dropped', { applicationId });
      return;
    }
    const prior = this.queues.get(applicationId) ?? Promise.resolve();
    const next = prior.then(() => this.dispatch(change)).catch((error: unknown) => this.failed('dispatch', error));
    this.queues.set(applicationId, next);
  }

  private async dispatch(change: RealtimeChange): Promise<void> {
    const set = this.subscribers.get(change.app);
    if (!set || set.size === 0) return;
    await this.refreshStaleWheres(set, change);
    // One encoding per record and distinct projection (the hidden-column sets of cached views are shared).
    const encoded = new Map<StoredRecord, Map<ReadonlySet<string>, { [key: string]: Json }>>();
    const encode = (record: StoredRecord, view: TableAccess, timeZone: string) => {
      let byProjection = encoded.get(record);
      if (!byProjection) encoded.set(record, (byProjection = new Map()));
      let data = byProjection.get(view.hidden);
      if (!data) byProjection.set(view.hidden, (data = encodeRecord(view.project(record), timeZone)));
      return data;
    };
    // Views asked once per change and identity (the master key, a user, anonymous), only for subscribers of the table.
    const views = new Map<string, TableAccess | null>();
    for (const subscriber of [...set]) {
      let view: TableAccess | null | undefined;
      for (const subscription of subscriber.subscriptions()) {
        if (subscription.className !== change.className) continue;
        if (view === undefined) {
          const { caller } = subscriber;
          const identity = caller.isMaster ? '\u0000master' : (caller.user?.objectId ?? '');
          view = views.get(identity);
          if (view === undefined) views.set(identity, (view = await this.viewOf(subscriber, change.className)));
        }
        if (view === null) break;
        const seen = view;
        const match = matchChange(subscription, change, (record) => seen.mayRead(record, 'find'));
        if (match) subscriber.deliver(subscription, match, encode(match.record, seen, subscriber.caller.app.settings.timeZone));
      }
    }
  }

  /** The subscriber's view of a table while it may still find in it (permissions may change after subscribing), else null. */
  private async viewOf(subscriber: Subscriber, className: string): Promise<TableAccess | null> {
    try {
      const view = await subscriber.caller.view(className);
      return view.allows('find') ? view : null;
    } catch (error) {
      this.failed('access', error);
      return null;
    }
  }

  /** Recompiles where subscriptions of the changed table compiled before a column of this record existed. */
  private async refreshStaleWheres(set: ReadonlySet<Subscriber>, change: RealtimeChange): Promise<void> {
    const record = change.after ?? change.before;
    if (!record) return;
    const stale: CompiledWhereSubscription[] = [];
    for (const subscriber of set) {
      for (const subscription of subscriber.subscriptions()) {
        if (subscription instanceof CompiledWhereSubscription && subscription.className === change.className && subscription.isStaleFor(record)) stale.push(subscription);
      }
    }
    if (stale.length === 0) return;
    const app = [...set][0]!.caller.app;
    const schema = await this.deps.storage.getSchema({ namespace: app.namespace, className: change.className });
    for (const subscription of stale) {
      try {
        subscription.recompile(schema);
      } catch (error) {
        this.failed('where recompile', error);
      }
    }
  }

  private failed(stage: string, error: unknown): void {
    this.deps.logger.error(`realtime ${stage} failed`, { error: String(error) });
  }
}
