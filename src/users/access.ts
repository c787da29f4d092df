import { svcError } from '../core/errors.js';
import type { RouteContext, SessionUser } from '../http/types.js';

/** The signed-in user of the request; 211 when the token is missing, unknown or expired. */
export async function requireSession(rc: RouteContext): Promise<SessionUser> {
  const user = rc.auth.sessionToken ? await rc.user() : null;
  if (!user) throw svcError('sessionInvalid');
  return user;
}

/**
 * Allows a change of user `objectId`: the master key, or that user's own session token. Anything
 * else (no token, an unknown or expired token, another user's token) is 206, the seed's
 * "sessionToken error". Returns the session user when a token was used.
 */
export async function requireSelfOrMaster(rc: RouteContext, objectId: string): Promise<SessionUser | null> {
  if (rc.auth.isMaster) return rc.auth.sessionToken ? rc.user() : null;
  const user = rc.auth.sessionToken ? await rc.user() : null;
  if (!user || user.objectId !== objectId) throw svcError('sessionTokenRequired');
  return user;
}
