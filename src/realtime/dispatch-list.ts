import type { SvcError } from '../core/errors.js';
import type { EventData, EventFrame } from './event-data.js';
import type { RealtimeCaller } from './realtime-caller.js';
import type { Match, QueryEvent, Subscription, TableAction } from './subscription.js';

/** Where a listener's events go: its connection's send (false when the frame was not queued). */
export interface EventOutlet {
  sendEvent(frame: EventFrame): boolean;
}

/** Who holds a listener (its connection's session): what a dispatch asks of it besides sending events. */
export interface ListenerOwner {
  /** Removes the listener's subscription, refused now with `error` (the client is told). */
  drop(listener: Listener, error: SvcError): void;
}

/** How a framing writes one delivery as a text frame, and the key that frame is shared under in an {@link EventData}. */
export interface EventFormat {
  /** The same key for the same frame: a function of the framing, the action and the parts of `subscription` the frame holds. */
  key(subscription: Subscription, action: TableAction | QueryEvent): string;
  frame(subscription: Subscription, match: Match, data: EventData): string;
  /** The frame of a coded error the server raises by itself: about `subscription` (then dropped), or about the connection (null). */
  error(subscription: Subscription | null, error: SvcError): string;
}

/**
 * One subscription as a change's dispatch reaches it: what matching, the access question and the
 * send need, held side by side, so the dispatch reads one object per subscription.
 */
export class Listener {
  /** The access identity its records are checked under: the master key, a user's objectId, or '' (anonymous). */
  readonly identity: string;
  /** Cleared when its subscription is removed: a dispatch that reaches it afterwards sends nothing. */
  live = true;
  /** The columns its where names; null for an action subscription, which names none. */
  readonly columns: ReadonlySet<string> | null;
  /**
   * The hidden columns its where was last found not to name (at first, those checked when
   * subscribing). A cached view keeps one `hidden` set, so a dispatch compares identities and tests
   * the columns only when the subscriber's view is another one.
   */
  checked: ReadonlySet<string> | null;
  /** The frame key of the last action delivered (a where subscription's action varies by change). */
  private action: TableAction | QueryEvent | undefined;
  private key = '';

  constructor(
    readonly subscription: Subscription,
    readonly caller: RealtimeCaller,
    private readonly outlet: EventOutlet,
    private readonly format: EventFormat,
    private readonly owner: ListenerOwner,
  ) {
    this.identity = caller.isMaster ? '\u0000master' : (caller.user?.objectId ?? '');
    this.columns = subscription.kind === 'where' ? subscription.columns : null;
    this.checked = subscription.kind === 'where' ? subscription.hidden : null;
  }

  /** Its subscription is refused from now on with `error`: its owner removes it and tells the client. */
  drop(error: SvcError): void {
    this.owner.drop(this, error);
  }

  deliver(match: Match, data: EventData): void {
    if (match.action !== this.action) {
      this.action = match.action;
      this.key = this.format.key(this.subscription, match.action);
    }
    this.outlet.sendEvent(data.kept(this.key) ?? data.keep(this.key, this.format.frame(this.subscription, match, data)));
  }
}

/**
 * The listeners of one application's table, in the order they subscribed. Removal only clears a
 * listener's `live` flag; the array is compacted when no dispatch walks it (`walking`), so a dispatch
 * paused between slices keeps valid positions, and listeners added meanwhile wait past its end.
 */
export class DispatchList {
  /** The listeners, removed ones included until the next compaction. */
  entries: Listener[] = [];
  /** Dispatches walking `entries` now (paused ones included). */
  walking = 0;
  private dead = 0;

  get size(): number {
    return this.entries.length - this.dead;
  }

  add(listener: Listener): void {
    this.entries.push(listener);
  }

  remove(listener: Listener): void {
    if (!listener.live) return;
    listener.live = false;
    this.dead++;
    if (this.walking === 0 && this.dead * 2 > this.entries.length) this.compact();
  }

  /** Drops removed listeners, unless a dispatch is walking the array. */
  compact(): void {
    if (this.walking > 0 || this.dead === 0) return;
    this.entries = this.entries.filter((listener) => listener.live);
    this.dead = 0;
  }
}
