import type { SessionResolver } from '../app/caller.js';
import type { UsersDeps } from './deps.js';
import { withoutPassword } from './user-output.js';

/**
 * Resolves session tokens for every route (`Caller.user()`): token → live session → user.
 * Reads storage on every call (no cache), so logout, password changes and deletes take effect on the
 * next request, on every instance. A session whose user is gone is revoked.
 */
export function createSessionResolver(deps: UsersDeps): SessionResolver {
  return {
    async resolve(app, token) {
      await deps.ready(app);
      const session = await deps.sessions.resolve(app, token);
      if (!session) return null;
      const user = await deps.users.get(app, session.userId);
      if (!user) {
        await deps.sessions.revoke(app, session.sessionId);
        return null;
      }
      return { objectId: user.objectId, record: withoutPassword(user), sessionId: session.sessionId, expiresAt: session.expiresAt };
    },
  };
}
