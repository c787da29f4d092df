import type { WriteEvent } from '../../events/write-event.js';
import { merged } from '../../core/copy.js';

/**
 * Folds two changes of one record inside one transaction into the one change it made overall, so a
 * transaction emits one event per changed record (a create with relation members is an insert and
 * an update). Null when nothing remains (created then deleted).
 */
export function mergeEvents(prior: WriteEvent, next: WriteEvent): WriteEvent | null {
  const base = { app: next.app, className: next.className, objectId: next.objectId, ...(next.caller ? { caller: next.caller } : {}) };
  if (prior.op === 'create') return next.op === 'delete' ? null : merged(base, { op: 'create' as const, after: next.after });
  if (next.op === 'create') return prior.before ? merged(base, { op: 'update' as const, before: prior.before, after: next.after }) : next;
  return next.op === 'delete' ? merged(base, { op: 'delete' as const, before: prior.before }) : merged(base, { op: 'update' as const, before: prior.before, after: next.after });
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
