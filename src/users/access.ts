import { svcError } from '../core/errors.js';
import type { Caller, SessionUser } from '../app/caller.js';
import type { TableAccess } from '../access/table-access.js';
import type { StoredRecord } from '../core/values.js';
import type { UsersDeps } from './deps.js';
import { userRef } from './user-table.js';

/** The signed-in user of the caller; 211 when the token is missing, unknown or expired. */
export async function requireSession(caller: Caller): Promise<SessionUser> {
  const user = caller.sessionToken ? await caller.user() : null;
  if (!user) throw svcError('sessionInvalid');
  return user;
}

/**
 * Allows a change of user `objectId`: the master key, or that user's own session token. Anything
 * else (no token, an unknown or expired token, another user's token) is 206, the seed's
 * "sessionToken error". Returns the session user when a token was used.
 */
export async function requireSelfOrMaster(caller: Caller, objectId: string): Promise<SessionUser | null> {
  if (caller.isMaster) return caller.sessionToken ? caller.user() : null;
  const user = caller.sessionToken ? await caller.user() : null;
  if (!user || user.objectId !== objectId) throw svcError('sessionTokenRequired');
  return user;
}

/** The caller's access view of `_User` (access/'s one decision for this caller and table). */
export async function userView(deps: UsersDeps, caller: Caller): Promise<TableAccess> {
  return deps.access.tableAccess(await deps.access.accessOf(caller), userRef(caller.app));
}

/**
 * The stored user `objectId` when the caller's view of `_User` admits `operation` on it: 11171 when
 * the class-level permissions close the operation, 101 (as a missing user) when the row's ACL or
 * pointer permissions refuse it. Every write of a user a caller makes asks it first (`PUT
 * /1/users/:id`, `/1/classes/_User/:id`, the old-password change), so each answers the same.
 */
export async function writableUser(deps: UsersDeps, caller: Caller, objectId: string, operation: 'update' | 'delete'): Promise<StoredRecord> {
  const view = await userView(deps, caller);
  view.assert(operation);
  const current = await deps.users.get(caller.app, objectId);
  if (!current || !view.mayWrite(current, operation)) throw svcError('objectNotFound', objectId);
  return current;
}
