import type { StoredRecord } from '../core/values.js';
import type { WriteEvent, WriteOpKind } from '../storage/write-events.js';
import { hideSecrets } from '../users/secret-columns.js';

/** A committed change as realtime carries it between instances: secret columns already removed. */
export interface RealtimeChange {
  readonly op: WriteOpKind;
  readonly app: string;
  readonly className: string;
  readonly objectId: string;
  readonly before?: StoredRecord;
  readonly after?: StoredRecord;
}

/** The bus channel of one application's changes. */
export function changeChannel(applicationId: string): string {
  return `svc:${applicationId}:realtime`;
}

const FORMAT = 1;

/**
 * The bus message of a write event, or null for a table realtime never carries (`_Session`).
 * Stored records are plain tagged JSON (core/values.ts), so they survive JSON unchanged.
 */
export function encodeChange(event: WriteEvent): string | null {
  const before = event.before && hideSecrets(event.className, event.before);
  const after = event.after && hideSecrets(event.className, event.after);
  if (before === null || after === null) return null;
  return JSON.stringify({ v: FORMAT, op: event.op, app: event.app, className: event.className, objectId: event.objectId, before, after });
}

const OPS: ReadonlySet<string> = new Set(['create', 'update', 'delete']);

/** Decodes a bus message of application `app`; null for anything malformed or of another application. */
export function decodeChange(app: string, message: string): RealtimeChange | null {
  let json: unknown;
  try {
    json = JSON.parse(message);
  } catch {
    return null;
  }
  if (typeof json !== 'object' || json === null) return null;
  const m = json as Record<string, unknown>;
  if (m.v !== FORMAT || m.app !== app || typeof m.op !== 'string' || !OPS.has(m.op)) return null;
  if (typeof m.className !== 'string' || typeof m.objectId !== 'string') return null;
  const before = recordOrUndefined(m.before, m.objectId);
  const after = recordOrUndefined(m.after, m.objectId);
  if (before === null || after === null) return null;
  if ((m.op === 'create' && !after) || (m.op === 'delete' && !before) || (m.op === 'update' && !after)) return null;
  return { op: m.op as WriteOpKind, app, className: m.className, objectId: m.objectId, ...(before ? { before } : {}), ...(after ? { after } : {}) };
}

function recordOrUndefined(value: unknown, objectId: string): StoredRecord | undefined | null {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  return (value as { objectId?: unknown }).objectId === objectId ? (value as StoredRecord) : null;
}
