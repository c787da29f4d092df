import type { TableRule } from '../access/table-rules.js';
import type { StoredRecord } from '../core/values.js';
import type { WriteEvent, WriteOpKind } from '../storage/write-events.js';

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

/** A record without the table's secret columns (the same object when it has none). */
function withoutSecrets(record: StoredRecord, secret: ReadonlySet<string>): StoredRecord {
  if (secret.size === 0) return record;
  const out: Record<string, unknown> = { ...record };
  for (const column of secret) delete out[column];
  return out as StoredRecord;
}

/**
 * The bus message of a write event under its table's rule: null for a table realtime never carries
 * (`_Session`), secret columns removed (`_User.password`), so no instance ever holds them in an event.
 * Stored records are plain tagged JSON (core/values.ts), so they survive JSON unchanged.
 */
export function encodeChange(event: WriteEvent, rule: TableRule): string | null {
  if (!rule.realtime) return null;
  const before = event.before && withoutSecrets(event.before, rule.secretColumns);
  const after = event.after && withoutSecrets(event.after, rule.secretColumns);
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
