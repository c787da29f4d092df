import type { Access } from '../access/access-control.js';
import { ACL_COLUMN } from '../access/acl-filter.js';
import type { Acl } from '../access/acl.js';
import { aclAllows } from '../access/principals.js';
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
  /**
   * The connection's access (its principals, roles included): resolved through the records feature's
   * access control, whose role cache keeps this cheap per change. Absent: anonymous (`*` only).
   */
  readonly access?: () => Promise<Access>;
}

/**
 * The per-subscriber read check: whether `caller` may receive this record of `className`, exactly as
 * it could GET it over REST: `_Session` with the master key only; a record with an ACL only when the
 * ACL grants the connection's user, one of its roles or everyone read (the master key always).
 */
export async function mayRead(caller: RealtimeCaller, className: string, record: Readonly<Record<string, unknown>>): Promise<boolean> {
  if (className === SESSION_CLASS) return caller.isMaster;
  const acl = record[ACL_COLUMN] as Acl | undefined | null;
  if (acl === undefined || acl === null || caller.isMaster) return true;
  const access = caller.access ? await caller.access() : null;
  if (access?.master) return true;
  return aclAllows(acl, access ? access.principals : ANONYMOUS_ONLY, 'read');
}

const ANONYMOUS_ONLY = { userId: null, keys: ['*'] } as const;

/** Tables no realtime subscription may name. `_Session` changes are never published (they hold token hashes). */
export function isSubscribableTable(className: string): boolean {
  return className !== SESSION_CLASS;
}
