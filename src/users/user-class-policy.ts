import { svcError } from '../core/errors.js';
import type { ClassPolicy } from '../records/index.js';
import { isPlausibleObjectId } from '../core/object-id.js';
import type { UsersDeps } from './deps.js';
import { signUp } from './sign-up.js';
import { deleteUser, updateUser } from './user-updates.js';

/**
 * The rules of `/1/classes/_User`, the same as `/1/users`: anyone with the application keys reads
 * (never the password); creates are sign-ups, exactly as `POST /1/users` (hashed password,
 * 202/203/209, emailVerified state machine, `sessionToken` in the answer); updates and deletes are
 * the users service's (`PUT|DELETE /1/users/:objectId`: that user's session token or the master key,
 * 206 otherwise; a new password revokes the other sessions, a new email is mailed a link, a delete
 * revokes every session); never in a batch.
 *
 * Reads are access/'s (`USER_TABLE_RULE`): `password` is a secret column, never shown and refused
 * (102) in any query that names it, whoever asks.
 */
export function userClassPolicy(deps: UsersDeps): ClassPolicy {
  // The generic path checks the id before the policy runs: keep that order (101 before 206).
  const assertId = (objectId: string) => {
    if (!isPlausibleObjectId(objectId)) throw svcError('objectNotFound', objectId.slice(0, 64));
  };
  return {
    allowBatch: false,
    // The same as `POST /1/users` (fix 11.5): the new user gets a session token.
    create: (caller, fields) => signUp(deps, caller, fields),
    update: async (caller, objectId, fields) => (assertId(objectId), updateUser(deps, caller, objectId, fields)),
    delete: async (caller, objectId) => (assertId(objectId), deleteUser(deps, caller, objectId)),
  };
}
