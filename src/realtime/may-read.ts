import type { Application } from '../app/application.js';
import type { SessionUser } from '../app/caller.js';
import { SESSION_CLASS } from '../users/user-table.js';

/** Who holds a realtime connection. */
export interface RealtimeCaller {
  readonly app: Application;
  /** Connected with the master key. */
  readonly isMaster: boolean;
  /** The session token's user, or null (anonymous: application keys only, or the SDK's socket). */
  readonly user: SessionUser | null;
}

/**
 * The per-subscriber read check: whether `caller` may receive this record of `className`. Today it
 * allows what the caller could GET over REST with its keys: every data table and `_User` (whose
 * secret columns were removed before publishing); `_Session` with the master key only. Per-record
 * ACL filtering arrives with access control (issue 15), here and nowhere else.
 */
export function mayRead(caller: RealtimeCaller, className: string, _record: object): boolean {
  if (className === SESSION_CLASS) return caller.isMaster;
  return true;
}

/** Tables no realtime subscription may name. `_Session` changes are never published (they hold token hashes). */
export function isSubscribableTable(className: string): boolean {
  return className !== SESSION_CLASS;
}
