import type { Logger } from '../core/logger.js';

/** What a waiting change is counted as besides its bus message: its decoded records and queue entry. */
export const PENDING_OVERHEAD = 1024;

interface Queue {
  tail: Promise<void>;
  bytes: number;
  /** Changes refused since the backlog last emptied. */
  dropped: number;
}

/**
 * The changes of each application waiting to be matched on this instance, run one after another in
 * bus order, and bounded: a change is counted as its bus message's length plus {@link PENDING_OVERHEAD}
 * until its dispatch ends, and one that would pass `maxBytes` is refused (logged when an episode of
 * refusals starts and when the backlog empties).
 */
export class ChangeBacklog {
  private readonly queues = new Map<string, Queue>();

  constructor(
    private readonly maxBytes: number,
    private readonly logger: Logger,
  ) {}

  /** Whether a change of `message` fits in the application's backlog; a refusal is counted. */
  fits(applicationId: string, message: string): boolean {
    const queue = this.queues.get(applicationId);
    if ((queue?.bytes ?? 0) + message.length + PENDING_OVERHEAD <= this.maxBytes) return true;
    const refused = queue ?? { tail: Promise.resolve(), bytes: 0, dropped: 0 };
    if (refused.dropped++ === 0) this.logger.warn('realtime: matching fell behind, changes dropped until it catches up', { applicationId, limit: this.maxBytes });
    this.queues.set(applicationId, refused);
    return false;
  }

  /** Runs `dispatch` after the application's earlier changes; `message` counts until it settles (its failure goes to `failed`). */
  enqueue(applicationId: string, message: string, dispatch: () => Promise<void>, failed: (error: unknown) => void): void {
    const bytes = message.length + PENDING_OVERHEAD;
    const queue = this.queues.get(applicationId) ?? { tail: Promise.resolve(), bytes: 0, dropped: 0 };
    queue.bytes += bytes;
    queue.tail = queue.tail
      .then(dispatch)
      .catch(failed)
      .finally(() => this.settled(applicationId, queue, bytes));
    this.queues.set(applicationId, queue);
  }

  private settled(applicationId: string, queue: Queue, bytes: number): void {
    queue.bytes -= bytes;
    if (queue.bytes > 0 || this.queues.get(applicationId) !== queue) return;
    this.queues.delete(applicationId);
    if (queue.dropped > 0) this.logger.warn('realtime: matching caught up', { applicationId, dropped: queue.dropped });
  }
}
