import { svcError } from '../core/errors.js';
import type { Caller, SessionUser } from '../app/caller.js';

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
