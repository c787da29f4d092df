import { svcError } from '../core/errors.js';
import { FORBIDDEN_KEYS, isValidTableName } from '../core/names.js';
import type { Json } from '../core/wire-values.js';
import { TABLE_ACTIONS, type TableAction } from './subscription.js';

/** A client message of the JSON protocol, validated. */
export type ClientMessage =
  | { readonly op: 'subscribe'; readonly id: string; readonly className: string; readonly action: TableAction; readonly objectId?: string }
  | { readonly op: 'subscribe'; readonly id: string; readonly className: string; readonly where: { [key: string]: Json } }
  | { readonly op: 'unsubscribe'; readonly id: string }
  | { readonly op: 'ping' };

const ID = /^[A-Za-z0-9_.:-]{1,64}$/;
/** The fields each message may carry: anything else is refused, so a typo is not silently ignored. */
const FIELDS = {
  ping: new Set(['op']),
  unsubscribe: new Set(['op', 'id']),
  subscribe: new Set(['op', 'id', 'tableName', 'action', 'objectId', 'where']),
} as const;
const OBJECT_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** Parses one text frame; every refusal is a coded error (11160, 11164) that names the problem. */
export function parseClientMessage(text: string): ClientMessage {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw svcError('realtimeBadMessage', 'not JSON');
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw svcError('realtimeBadMessage', 'a message is a JSON object');
  const m = json as Record<string, unknown>;
  for (const key of Object.keys(m)) if (FORBIDDEN_KEYS.has(key)) throw svcError('realtimeBadMessage', `key '${key}' is not allowed`);
  if (m.op === 'ping' || m.op === 'unsubscribe' || m.op === 'subscribe') {
    const allowed = FIELDS[m.op];
    const extra = Object.keys(m).find((key) => !allowed.has(key));
    if (extra !== undefined) throw svcError('realtimeBadMessage', `${m.op} takes no field '${extra.slice(0, 64)}'`);
  }
  switch (m.op) {
    case 'ping':
      return { op: 'ping' };
    case 'unsubscribe':
      return { op: 'unsubscribe', id: subscriptionId(m.id) };
    case 'subscribe':
      return subscribeMessage(m);
    default:
      throw svcError('realtimeBadMessage', "op must be 'subscribe', 'unsubscribe' or 'ping'");
  }
}

function subscribeMessage(m: Record<string, unknown>): ClientMessage {
  const id = subscriptionId(m.id);
  const className = m.tableName;
  if (typeof className !== 'string' || !isValidTableName(className)) throw svcError('realtimeBadMessage', 'tableName must be a table name');
  if (m.where !== undefined) {
    if (m.action !== undefined) throw svcError('realtimeBadMessage', 'a subscription has either an action or a where, not both');
    if (typeof m.where !== 'object' || m.where === null || Array.isArray(m.where)) throw svcError('realtimeBadMessage', 'where must be a JSON object');
    return { op: 'subscribe', id, className, where: m.where as { [key: string]: Json } };
  }
  if (typeof m.action !== 'string' || !TABLE_ACTIONS.has(m.action)) {
    throw svcError('realtimeBadMessage', 'action must be updateTable, updateRow, deleteTable or deleteRow (or give a where)');
  }
  const action = m.action as TableAction;
  const rowAction = action === 'updateRow' || action === 'deleteRow';
  if (!rowAction) {
    if (m.objectId !== undefined && m.objectId !== '') throw svcError('realtimeBadMessage', `${action} takes no objectId`);
    return { op: 'subscribe', id, className, action };
  }
  if (typeof m.objectId !== 'string' || !OBJECT_ID.test(m.objectId)) throw svcError('realtimeBadMessage', `${action} needs an objectId`);
  return { op: 'subscribe', id, className, action, objectId: m.objectId };
}

function subscriptionId(value: unknown): string {
  const id = usableId(value);
  if (id === undefined) throw svcError('realtimeBadMessage', 'id must be a non-negative integer or 1-64 letters, digits, _ . : -');
  return id;
}

/** A subscription id as its string, or undefined when `value` is not a usable one. */
export function usableId(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return String(value);
  return typeof value === 'string' && ID.test(value) ? value : undefined;
}
