import type { Application } from '../app/application.js';
import type { MetricsPort } from '../core/metrics.js';
import type { Logger } from '../core/logger.js';
import type { StoredRecord } from '../core/values.js';
import { type Json, encodeRecord } from '../core/wire-values.js';
import { secretColumnError } from '../query/parse/context.js';
import { EventData } from './event-data.js';
import type { EventBus } from '../events/port.js';
import type { Awaitable, StorageAdapter } from '../storage/port.js';
import type { WriteEvent } from '../events/write-event.js';
import type { TableAccess } from '../access/table-access.js';
import type { TableRules } from '../access/table-rules.js';
import { ChangeBacklog } from './change-backlog.js';
import { type RealtimeChange, changeChannel, changeMessage, changeOf, decodeChange } from './change.js';
import { OwnChanges } from './own-changes.js';
import { DEFAULT_REALTIME_LIMITS } from './options.js';
import type { RealtimeCaller } from './realtime-caller.js';
import { SharedWheres, type WhereLimits, type WhereRequest } from './shared-wheres.js';
import { DispatchList, type Listener } from './dispatch-list.js';
import { endedSessionTag, sessionEndedMessage, sessionTag } from './session-ends.js';
import { SliceGate } from './slice-gate.js';
import { type Subscription, matchChange } from './subscription.js';
import { type SharedWhere, SharedWhereSubscription } from './where-subscription.js';

/** One connection as the engine sees it: who it is and what it subscribed to (each subscription is also {@link SubscriptionEngine.listen}ed). */
export interface Subscriber {
  readonly caller: RealtimeCaller;
  subscriptions(): Iterable<Subscription>;
  /** The session its caller signed in with ended: it drops its subscriptions and closes its connection. */
  sessionEnded(): void;
}

/** A subscriber's view of the changed table for one change, and the record check made with it. */
interface Sight {
  readonly view: TableAccess;
  readonly visible: (record: StoredRecord) => boolean;
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
  /** The matching budgets (docs/realtime.md, "Where budgets and matching"); defaults: DEFAULT_REALTIME_LIMITS. */
  readonly matching?: MatchingLimits;
  /** Counts each event delivered (none by default). */
  readonly metrics?: MetricsPort;
}

/** How much matching an application may ask of this instance, and how it is spread over time. */
export interface MatchingLimits extends WhereLimits {
  /** Longest stretch of matching before the event loop serves other work, in ms. */
  readonly dispatchSliceMs: number;
  /** Bytes of an application's changes waiting to be matched (each counted as its bus message plus 1 KiB); past it, changes are dropped on this instance. */
  readonly maxPendingChangeBytes: number;
}

const DEFAULT_MATCHING: MatchingLimits = DEFAULT_REALTIME_LIMITS;

/**
 * The subscription engine both framings share. Writes go out on the bus (`publish`); what comes back
 * from the bus, this instance's own writes included, is matched against this instance's subscribers
 * and delivered, so each subscriber gets each change exactly once whichever instance wrote it.
 * Changes of one application are dispatched in bus order, off the request path: matching runs in
 * slices between which the event loop serves other requests (`dispatchSliceMs`), identical wheres
 * are evaluated once per change, and an application whose changes wait unmatched past
 * `maxPendingChangeBytes` has its further changes dropped on this instance until it catches up.
 */
export class SubscriptionEngine {
  /** The compiled wheres of every subscriber, shared and counted per application. */
  readonly wheres: SharedWheres;
  private readonly subscribers = new Map<string, Set<Subscriber>>();
  /** The listeners of each application's tables: application id, then table name. */
  private readonly lists = new Map<string, Map<string, DispatchList>>();
  private readonly busSubscriptions = new Map<string, Promise<() => Awaitable<void>>>();
  private readonly backlog: ChangeBacklog;
  /** This instance's changes on their way round the bus: dispatched from the change, not parsed again. */
  private readonly own = new OwnChanges();
  private readonly gate: SliceGate;
  private readonly limits: MatchingLimits;
  private closed = false;

  constructor(private readonly deps: EngineDeps) {
    this.limits = deps.matching ?? DEFAULT_MATCHING;
    this.wheres = new SharedWheres(this.limits);
    this.gate = new SliceGate(this.limits.dispatchSliceMs);
    this.backlog = new ChangeBacklog(this.limits.maxPendingChangeBytes, deps.logger);
  }

  /**
   * A where subscription of `subscriber` (`request`: its where, parsed against the schema now),
   * sharing a compiled where with identical ones; refused as {@link SharedWheres.acquire} says,
   * with `admit` checking the connection's own budget first.
   */
  whereSubscription(id: string, request: WhereRequest, admit: (cost: number) => void): SharedWhereSubscription {
    const shared = this.wheres.acquire(request, admit);
    return new SharedWhereSubscription(id, shared, request.hidden, () => this.wheres.release(request.app.applicationId, shared));
  }

  /** The write observer: publishes a committed change of an application with realtime on. */
  publish(app: Application, event: WriteEvent): void {
    if (this.closed) return;
    const channel = changeChannel(app.applicationId);
    // An in-process bus knows when no instance subscribes to the application: nothing to encode.
    if (this.deps.bus.listened?.(channel) === false) return;
    const change = changeOf(event, this.deps.tables.ruleOf(event.className));
    if (change === null) return;
    const message = changeMessage(change);
    // Only a channel this instance listens to brings the message back.
    if (this.busSubscriptions.has(app.applicationId)) this.own.remember(message, change);
    this.post(channel, message);
  }

  /** Publishes `message` on the bus; a failure is logged, and a message that never left is not awaited back. */
  private post(channel: string, message: string): void {
    try {
      const published = this.deps.bus.publish(channel, message);
      if (published instanceof Promise) published.catch((error: unknown) => this.failed('publish', error));
    } catch (error) {
      this.own.forget(message);
      this.failed('publish', error);
    }
  }

  /**
   * Tells every instance that session `sessionId` of `app` ended (its `_Session` row was deleted or
   * changed: logout, a new password, an administrator's revoke, the user deleted): each closes its
   * connections signed in with it. Published on the application's channel, so it reaches exactly the
   * instances with subscribers of the application, after the changes this instance published before.
   */
  endSession(app: Application, sessionId: string): void {
    if (this.closed) return;
    const channel = changeChannel(app.applicationId);
    if (this.deps.bus.listened?.(channel) === false) return;
    this.post(channel, sessionEndedMessage(sessionTag(sessionId)));
  }

  /** Starts delivering to `subscriber`; resolves once its application's bus channel is listened to. */
  async attach(subscriber: Subscriber): Promise<void> {
    const id = subscriber.caller.app.applicationId;
    let set = this.subscribers.get(id);
    if (!set) this.subscribers.set(id, (set = new Set()));
    set.add(subscriber);
    let listening = this.busSubscriptions.get(id);
    if (!listening) {
      const attempt = Promise.resolve(this.deps.bus.subscribe(changeChannel(id), (message) => this.receive(id, message)));
      this.busSubscriptions.set(id, attempt);
      attempt.catch(() => {
        // Only this attempt's own entry: a released channel may be listened to again meanwhile.
        if (this.busSubscriptions.get(id) === attempt) this.busSubscriptions.delete(id);
      });
      listening = attempt;
    }
    await listening;
  }

  detach(subscriber: Subscriber): void {
    const id = subscriber.caller.app.applicationId;
    const set = this.subscribers.get(id);
    if (!set?.delete(subscriber) || set.size > 0) return;
    this.subscribers.delete(id);
    this.release(id);
  }

  /**
   * Stops listening to an application's channel once none of its subscribers is on this instance:
   * its changes no longer come back to be matched for no one, and an in-process bus then knows no
   * instance listens, so `publish` skips encoding them. The next `attach` listens again.
   */
  private release(applicationId: string): void {
    const listening = this.busSubscriptions.get(applicationId);
    if (!listening) return;
    this.busSubscriptions.delete(applicationId);
    listening.then(
      async (stop) => {
        try {
          await stop();
        } catch (error) {
          this.failed('unsubscribe', error);
        }
      },
      () => {},
    );
  }

  /** Lists a subscription for dispatch until {@link unlisten} (the subscriber's session does both). */
  listen(listener: Listener): void {
    if (this.closed) return;
    const app = listener.caller.app.applicationId;
    let tables = this.lists.get(app);
    if (!tables) this.lists.set(app, (tables = new Map()));
    const { className } = listener.subscription;
    let list = tables.get(className);
    if (!list) tables.set(className, (list = new DispatchList()));
    list.add(listener);
  }

  /** Stops dispatching to `listener`, also in a dispatch paused now. */
  unlisten(listener: Listener): void {
    const app = listener.caller.app.applicationId;
    const { className } = listener.subscription;
    const list = this.lists.get(app)?.get(className);
    if (!list) {
      listener.live = false;
      return;
    }
    list.remove(listener);
    this.dropIfEmpty(app, className, list);
  }

  /** Forgets a table's list once it holds no listener and no dispatch walks it. */
  private dropIfEmpty(app: string, className: string, list: DispatchList): void {
    if (list.size !== 0 || list.walking !== 0) return;
    const tables = this.lists.get(app);
    if (tables?.get(className) !== list) return;
    tables.delete(className);
    if (tables.size === 0) this.lists.delete(app);
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
    this.lists.clear();
    this.own.clear();
    this.wheres.clear();
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
    const own = this.own.take(message);
    if (this.closed) return;
    // Before the backlog's bound: a flood of changes never holds back the end of a session.
    const ended = endedSessionTag(message);
    if (ended !== null) return this.endSessions(applicationId, ended);
    const set = this.subscribers.get(applicationId);
    if (!set || set.size === 0 || !this.backlog.fits(applicationId, message)) return;
    const change = own?.app === applicationId ? own : decodeChange(applicationId, message);
    if (!change) {
      this.deps.logger.warn('realtime: malformed bus message dropped', { applicationId });
      return;
    }
    this.backlog.enqueue(applicationId, message, () => this.dispatch(change), (error) => this.failed('dispatch', error));
  }

  /**
   * Closes this instance's connections of `applicationId` signed in with the session of `tag`, at
   * once: a change dispatched from now on, even one a paused dispatch already holds, no longer reaches them.
   */
  private endSessions(applicationId: string, tag: string): void {
    for (const subscriber of [...(this.subscribers.get(applicationId) ?? [])]) {
      if (subscriber.caller.sessionTag !== tag) continue;
      this.deps.logger.info('realtime: session ended; connection closed', { applicationId, user: subscriber.caller.user?.objectId ?? null });
      try {
        subscriber.sessionEnded();
      } catch (error) {
        this.failed('session end', error);
      }
    }
  }

  private async dispatch(change: RealtimeChange): Promise<void> {
    const list = this.lists.get(change.app)?.get(change.className);
    if (!list || list.size === 0 || this.closed) return;
    list.walking++;
    try {
      await this.walk(list, change);
    } finally {
      list.walking--;
      list.compact();
      this.dropIfEmpty(change.app, change.className, list);
    }
  }

  /** Matches `change` for each listener of its table and sends what each may read. */
  private async walk(list: DispatchList, change: RealtimeChange): Promise<void> {
    const refreshing = this.refreshStaleWheres(change);
    if (refreshing) await refreshing;
    // One encoding per record and distinct projection (the hidden-column sets of cached views are shared).
    const encoded = new Map<StoredRecord, Map<ReadonlySet<string>, EventData>>();
    let lastRecord: StoredRecord | undefined;
    let lastHidden: ReadonlySet<string> | undefined;
    let lastData: EventData | undefined;
    const encode = (record: StoredRecord, view: TableAccess, listener: Listener): EventData => {
      if (record === lastRecord && view.hidden === lastHidden) return lastData!;
      let byProjection = encoded.get(record);
      if (!byProjection) encoded.set(record, (byProjection = new Map()));
      let data = byProjection.get(view.hidden);
      if (!data) byProjection.set(view.hidden, (data = new EventData(encodeRecord(view.project(record), listener.caller.app.settings.timeZone))));
      lastRecord = record;
      lastHidden = view.hidden;
      return (lastData = data);
    };
    // Views asked once per change and identity (the master key, a user, anonymous); each listener's records
    // are still checked against its own identity's view (`mayRead`).
    const sights = new Map<string, Sight | null>();
    let identity: string | undefined;
    let sight: Sight | null = null;
    // Listeners added while this dispatch waits come after `count` and are not walked.
    const { entries } = list;
    const count = entries.length;
    for (let i = 0; i < count; i++) {
      const listener = entries[i]!;
      if (!listener.live) continue;
      // A record can make one subscription's match cost milliseconds (a long array against a `$in`).
      if (this.gate.due()) {
        await this.gate.pause();
        if (this.closed) return;
        if (!listener.live) continue;
      }
      if (listener.identity !== identity) {
        identity = listener.identity;
        let known = sights.get(identity);
        if (known === undefined) {
          sights.set(identity, (known = await this.sightOf(listener.caller, change.className)));
          if (this.closed) return;
        }
        sight = known;
        if (!listener.live) continue;
      }
      if (sight === null) continue;
      // A where naming a column the subscriber's view hides now (protected fields or roles changed) no longer matches.
      if (listener.columns !== null && listener.checked !== sight.view.hidden && !this.mayStillName(listener, sight.view.hidden, change)) continue;
      const match = matchChange(listener.subscription, change, sight.visible);
      if (match) {
        listener.deliver(match, encode(match.record, sight.view, listener));
        this.deps.metrics?.realtimeEvent(change.app);
      }
    }
  }

  /**
   * Whether `listener`'s where names no column of `hidden`, its subscriber's view's hidden columns
   * now. Otherwise the subscription is dropped with 102, as REST refuses a where naming a hidden
   * column (and as subscribing now would be): matching on it would tell the subscriber the values it
   * may no longer see. Asked only when the view's set is not the one last checked.
   */
  private mayStillName(listener: Listener, hidden: ReadonlySet<string>, change: RealtimeChange): boolean {
    for (const column of listener.columns!) {
      if (!hidden.has(column)) continue;
      this.deps.logger.debug('realtime: where subscription dropped: it names a column now hidden from its subscriber', { applicationId: change.app, className: change.className, column });
      listener.drop(secretColumnError(column));
      return false;
    }
    listener.checked = hidden;
    return true;
  }

  /** The caller's view (`viewOf`) with its record check, made once per change and identity. */
  private async sightOf(caller: RealtimeCaller, className: string): Promise<Sight | null> {
    const view = await this.viewOf(caller, className);
    return view && { view, visible: (record) => view.mayRead(record, 'find') };
  }

  /** The subscriber's view of a table while it may still find in it (permissions may change after subscribing), else null. */
  private async viewOf(caller: RealtimeCaller, className: string): Promise<TableAccess | null> {
    try {
      const view = await caller.view(className);
      return view.allows('find') ? view : null;
    } catch (error) {
      this.failed('access', error);
      return null;
    }
  }

  /**
   * Compiles again the changed table's wheres that name a column of this record their schema lacked
   * (each shared where once); null when none does (the common case costs no turn of the microtask queue).
   */
  private refreshStaleWheres(change: RealtimeChange): Promise<void> | null {
    const record = change.after ?? change.before;
    if (!record) return null;
    const stale = [...this.wheres.ofClass(change.app, change.className)].filter((shared) => shared.isStaleFor(record));
    if (stale.length === 0) return null;
    const app = [...(this.subscribers.get(change.app) ?? [])][0]?.caller.app;
    if (!app) return null;
    return this.recompile(change, app.namespace, stale);
  }

  /** Compiles `stale` again against the table's schema as stored now, between slices like matching. */
  private async recompile(change: RealtimeChange, namespace: string, stale: readonly SharedWhere[]): Promise<void> {
    const schema = await this.deps.storage.getSchema({ namespace, className: change.className });
    for (const shared of stale) {
      if (this.gate.due()) {
        await this.gate.pause();
        if (this.closed) return;
      }
      try {
        shared.recompile(schema);
      } catch (error) {
        this.failed('where recompile', error);
      }
    }
  }

  private failed(stage: string, error: unknown): void {
    this.deps.logger.error(`realtime ${stage} failed`, { error: String(error) });
  }
}
