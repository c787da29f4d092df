import { svcError } from '../core/errors.js';
import type { StoredRecord } from '../core/values.js';
import type { ClassPolicy, ClassPolicyContext } from '../records/class-policy.js';
import { isPlausibleObjectId } from '../records/object-id.js';
import type { UsersDeps } from './deps.js';
import { SECRET_COLUMNS } from './secret-columns.js';
import { withoutPassword } from './user-output.js';
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
 * Lists of `_User`, and other tables' lists whose inner queries read `_User`, refuse queries that
 * name `password` anywhere in their plan (102), whoever asks.
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
    // Lists (and inner queries of other tables' lists) must not probe the password hash.
    secretColumns: SECRET_COLUMNS,
    filterOutput: (_ctx, record) => withoutPassword(record),
  };
}

/**
 * `/1/classes/_Session`: master key only, for every operation; never in a batch. Should a listing
 * reach it without the master key, records show only their objectId and timestamps.
 */
export const SESSION_CLASS_POLICY: ClassPolicy = Object.freeze({
  allowBatch: false,
  filterOutput: (ctx: ClassPolicyContext, record: StoredRecord): StoredRecord =>
    ctx.caller.isMaster ? record : { objectId: record.objectId, createdAt: record.createdAt, updatedAt: record.updatedAt },
  beforeCreate: (ctx: ClassPolicyContext) => requireMaster(ctx),
  beforeRead: (ctx: ClassPolicyContext) => requireMaster(ctx),
  beforeList: (ctx: ClassPolicyContext) => requireMaster(ctx),
  beforeUpdate: (ctx: ClassPolicyContext) => requireMaster(ctx),
  beforeDelete: (ctx: ClassPolicyContext) => requireMaster(ctx),
});

function requireMaster(ctx: ClassPolicyContext): void {
  if (!ctx.caller.isMaster) throw svcError('masterKeyRequired');
}
