import type { StoredRecord } from '../core/values.js';
import type { WriteEvent, WriteOpKind } from './write-event.js';

/** A write event read back from a bus message, with the id of the instance that published it when it names one. */
export interface DecodedWriteEvent extends Omit<WriteEvent, 'caller'> {
  readonly instance?: string;
}

/** The version of the encoding; a message of another version is not read (instances of one deployment run one version). */
const VERSION = 2;
const OPS: ReadonlySet<string> = new Set<WriteOpKind>(['create', 'update', 'delete']);

/**
 * The one encoding of a committed write on a bus, shared by realtime's fan-out and the change feed:
 * JSON `{v, op, app, className, objectId, before?, after?, instance?}`. Records are stored records
 * (core/values.ts: tagged JSON, dates as ISO instants to the millisecond), so they come back exactly.
 * The caller never leaves the process. What a record may carry onto a bus (secret columns removed,
 * system tables left out) is the publisher's decision, made before encoding.
 */
export function encodeWriteEvent(event: WriteEvent, instance?: string): string {
  return JSON.stringify({
    v: VERSION,
    op: event.op,
    app: event.app,
    className: event.className,
    objectId: event.objectId,
    ...(event.before ? { before: event.before } : {}),
    ...(event.after ? { after: event.after } : {}),
    ...(instance === undefined ? {} : { instance }),
  });
}

/**
 * Reads a bus message back into a write event; null for anything else (a bus is shared, so foreign
 * or malformed text is possible): another version, an unknown op, a record whose objectId is not
 * the event's, a create without `after`, a delete without `before`, an update without `after`.
 */
export function decodeWriteEvent(message: string): DecodedWriteEvent | null {
  let json: unknown;
  try {
    json = JSON.parse(message);
  } catch {
    return null;
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return null;
  const m = json as Record<string, unknown>;
  if (m.v !== VERSION || typeof m.op !== 'string' || !OPS.has(m.op)) return null;
  if (typeof m.app !== 'string' || typeof m.className !== 'string' || typeof m.objectId !== 'string') return null;
  if (m.instance !== undefined && typeof m.instance !== 'string') return null;
  const before = recordOf(m.before, m.objectId);
  const after = recordOf(m.after, m.objectId);
  if (before === null || after === null) return null;
  if ((m.op === 'create' && !after) || (m.op === 'delete' && !before) || (m.op === 'update' && !after)) return null;
  return {
    op: m.op as WriteOpKind,
    app: m.app,
    className: m.className,
    objectId: m.objectId,
    ...(before ? { before } : {}),
    ...(after ? { after } : {}),
    ...(m.instance === undefined ? {} : { instance: m.instance }),
  };
}

function recordOf(value: unknown, objectId: string): StoredRecord | undefined | null {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  return (value as { objectId?: unknown }).objectId === objectId ? (value as StoredRecord) : null;
}
