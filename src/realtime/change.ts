import type { TableRule } from '../access/table-rules.js';
import type { StoredRecord } from '../core/values.js';
import type { WriteEvent } from '../events/write-event.js';
import { type DecodedWriteEvent, decodeWriteEvent, encodeWriteEvent } from '../events/write-event-codec.js';

/** A committed change as realtime carries it between instances: secret columns already removed. */
export type RealtimeChange = Omit<DecodedWriteEvent, 'instance'>;

/** The bus channel of one application's changes. */
export function changeChannel(applicationId: string): string {
  return `svc:${applicationId}:realtime`;
}

/** A record without the table's secret columns (the same object when it has none). */
function withoutSecrets(record: StoredRecord, secret: ReadonlySet<string>): StoredRecord {
  if (secret.size === 0) return record;
  const out: Record<string, unknown> = { ...record };
  for (const column of secret) delete out[column];
  return out as StoredRecord;
}

/**
 * A write event as realtime carries it under its table's rule: null for a table realtime never
 * carries (`_Session`), secret columns removed (`_User.password`), so no instance ever holds them in
 * an event. Its records are the event's own (copied only to remove a secret column).
 */
export function changeOf(event: WriteEvent, rule: TableRule): RealtimeChange | null {
  if (!rule.realtime) return null;
  const before = event.before && withoutSecrets(event.before, rule.secretColumns);
  const after = event.after && withoutSecrets(event.after, rule.secretColumns);
  return { op: event.op, app: event.app, className: event.className, objectId: event.objectId, ...(before ? { before } : {}), ...(after ? { after } : {}) };
}

/** The bus message of a change, in the one write-event encoding (events/write-event-codec.ts). */
export function changeMessage(change: RealtimeChange): string {
  return encodeWriteEvent(change);
}

/** The bus message of a write event under its table's rule ({@link changeOf}, then {@link changeMessage}). */
export function encodeChange(event: WriteEvent, rule: TableRule): string | null {
  const change = changeOf(event, rule);
  return change && changeMessage(change);
}

/** Decodes a bus message of application `app`; null for anything malformed or of another application. */
export function decodeChange(app: string, message: string): RealtimeChange | null {
  const event = decodeWriteEvent(message);
  if (!event || event.app !== app) return null;
  const { instance: _instance, ...change } = event;
  return change;
}
