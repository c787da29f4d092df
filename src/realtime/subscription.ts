import type { StoredRecord } from '../core/values.js';
import type { RealtimeChange } from './change.js';
import { changedColumns } from './changed-columns.js';

/** The seed's four subscription actions. */
export type TableAction = 'updateTable' | 'updateRow' | 'deleteTable' | 'deleteRow';
export const TABLE_ACTIONS: ReadonlySet<string> = new Set<TableAction>(['updateTable', 'updateRow', 'deleteTable', 'deleteRow']);

/** What a where subscription reports, as Parse LiveQuery names it. */
export type QueryEvent = 'create' | 'update' | 'enter' | 'leave' | 'delete';

/** A subscription to one of the seed's actions; `objectId` for the row actions only. */
export interface ActionSubscription {
  readonly kind: 'action';
  readonly id: string;
  readonly action: TableAction;
  readonly className: string;
  readonly objectId?: string;
}

/** A subscription to the records of a table that match a where (compiled by where-subscription.ts). */
export interface WhereSubscription {
  readonly kind: 'where';
  readonly id: string;
  readonly className: string;
  /** Its where's cost (where-cost.ts), counted against its connection's budget. */
  readonly cost: number;
  /** The columns its where names (system columns included), worked out once when it was parsed. */
  readonly columns: ReadonlySet<string>;
  /** The subscriber's hidden columns its where was checked against when subscribing (its view's `hidden` then). */
  readonly hidden: ReadonlySet<string>;
  matches(record: StoredRecord): boolean;
  /** Whether its where names one of `columns` (when it names none, a record matches it as the same record with those columns changed). */
  namesAny(columns: ReadonlySet<string>): boolean;
  /** Gives back what it holds (its shared where); called once it is removed. */
  release(): void;
}

export type Subscription = ActionSubscription | WhereSubscription;

/** What one subscription makes of one change: the event name and the record to send. */
export interface Match {
  readonly action: TableAction | QueryEvent;
  readonly record: StoredRecord;
}

/**
 * Whether `change` concerns `sub`, and as what, for a subscriber who may read the records `visible`
 * admits (its access view's `mayRead`): a record it may not read is never sent, and counts as not
 * matching for a where subscription.
 * - updateTable: any create or update in the table; updateRow: an update of that record;
 * - deleteTable: any delete in the table; deleteRow: the delete of that record (data: the record as it was);
 * - where: create (new record matches), update (matched before and after), enter (matches only
 *   after), leave (matched only before; data: the record after, when the subscriber may still read
 *   it), delete (a matching record deleted).
 */
export function matchChange(sub: Subscription, change: RealtimeChange, visible: (record: StoredRecord) => boolean): Match | null {
  if (sub.className !== change.className) return null;
  if (sub.kind === 'where') return matchWhere(sub, change, visible);
  const row = sub.objectId === undefined || sub.objectId === change.objectId;
  switch (sub.action) {
    case 'updateTable':
      return change.op !== 'delete' ? shown(sub.action, change.after, visible) : null;
    case 'updateRow':
      return change.op === 'update' && row ? shown(sub.action, change.after, visible) : null;
    case 'deleteTable':
      return change.op === 'delete' ? shown(sub.action, change.before, visible) : null;
    case 'deleteRow':
      return change.op === 'delete' && row ? shown(sub.action, change.before, visible) : null;
  }
}

/** An action subscription's match: `record`, when there is one and the subscriber may read it. */
function shown(action: TableAction, record: StoredRecord | undefined, visible: (record: StoredRecord) => boolean): Match | null {
  return record && visible(record) ? { action, record } : null;
}

function matchWhere(sub: WhereSubscription, change: RealtimeChange, visible: (record: StoredRecord) => boolean): Match | null {
  const matchesAfter = change.after !== undefined && change.op !== 'delete' && sub.matches(change.after);
  // An update that left every column the where names alone matched it before as it does after.
  const changed = changedColumns(change);
  const matchedBefore = change.before !== undefined && change.op !== 'create' && (changed && !sub.namesAny(changed) ? matchesAfter : sub.matches(change.before));
  const was = matchedBefore && visible(change.before!);
  const is = matchesAfter && visible(change.after!);
  if (change.op === 'delete') return was ? { action: 'delete', record: change.before! } : null;
  if (change.op === 'create') return is ? { action: 'create', record: change.after! } : null;
  if (was && is) return { action: 'update', record: change.after! };
  if (is) return { action: 'enter', record: change.after! };
  // A record that left the subscriber's sight is announced only while it may still read it.
  if (was && change.after !== undefined && visible(change.after)) return { action: 'leave', record: change.after };
  return null;
}
