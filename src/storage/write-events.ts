import type { Caller } from '../app/caller.js';
import type { Logger } from '../core/logger.js';
import type { StoredRecord } from '../core/values.js';

/** What a committed write did to one record. */
export type WriteOpKind = 'create' | 'update' | 'delete';

/**
 * One changed record, emitted after its write committed (after the whole transaction when it ran in
 * one). `before` is absent for a create, `after` for a delete.
 */
export interface WriteEvent {
  readonly op: WriteOpKind;
  /** The application id of the table's namespace. */
  readonly app: string;
  readonly className: string;
  readonly objectId: string;
  readonly before?: StoredRecord;
  readonly after?: StoredRecord;
  /** Who made the write, when a caller did (`actingAs`): in-process only, never published on a bus. */
  readonly caller?: Caller;
}

/** Called once per committed change. Errors (thrown or rejected) are logged and never fail the write. */
export type WriteObserver = (event: WriteEvent) => void | Promise<void>;

/** The observers of one service: registration, and delivery that isolates each observer's failures. */
export class WriteObservers {
  private readonly observers = new Set<WriteObserver>();

  constructor(private readonly logger: Logger) {}

  /** Registers an observer; returns its unsubscribe function. */
  add(observer: WriteObserver): () => void {
    // A wrapper per registration, so the same function registered twice is called twice and unsubscribes once.
    const entry: WriteObserver = (event) => observer(event);
    this.observers.add(entry);
    return () => void this.observers.delete(entry);
  }

  /** Whether any observer listens (writes skip the before-image read otherwise). */
  get active(): boolean {
    return this.observers.size > 0;
  }

  emit(event: WriteEvent): void {
    for (const observer of this.observers) {
      try {
        const result = observer(event);
        if (result instanceof Promise) result.catch((error: unknown) => this.failed(event, error));
      } catch (error) {
        this.failed(event, error);
      }
    }
  }

  private failed(event: WriteEvent, error: unknown): void {
    this.logger.error('write observer failed', { op: event.op, className: event.className, objectId: event.objectId, error: String(error) });
  }
}

/**
 * Folds two changes of one record inside one transaction into the one change it made overall, so a
 * transaction emits one event per changed record (a create with relation members is an insert and
 * an update). Null when nothing remains (created then deleted).
 */
export function mergeEvents(prior: WriteEvent, next: WriteEvent): WriteEvent | null {
  const base = { app: next.app, className: next.className, objectId: next.objectId, ...(next.caller ? { caller: next.caller } : {}) };
  if (prior.op === 'create') return next.op === 'delete' ? null : { ...base, op: 'create', after: next.after };
  if (next.op === 'create') return prior.before ? { ...base, op: 'update', before: prior.before, after: next.after } : next;
  return next.op === 'delete' ? { ...base, op: 'delete', before: prior.before } : { ...base, op: 'update', before: prior.before, after: next.after };
}

/** The events held by one open transaction, one per record, in the order records were first changed. */
export class HeldEvents {
  private readonly byRecord = new Map<string, WriteEvent>();

  hold(event: WriteEvent): void {
    const key = `${event.app}\u0000${event.className}\u0000${event.objectId}`;
    const prior = this.byRecord.get(key);
    const merged = prior ? mergeEvents(prior, event) : event;
    if (merged === null) this.byRecord.delete(key);
    else this.byRecord.set(key, merged);
  }

  release(deliver: (event: WriteEvent) => void): void {
    for (const event of this.byRecord.values()) deliver(event);
  }
}
