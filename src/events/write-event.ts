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
