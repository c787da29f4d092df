import type { AccessControl } from '../access/access-control.js';
import type { TableAccess } from '../access/table-access.js';
import type { Application } from '../app/application.js';
import type { Caller, CredentialKind, SessionUser } from '../app/caller.js';
import { svcError } from '../core/errors.js';
import { sessionTag } from './session-ends.js';

/** Who holds a realtime connection. */
export interface RealtimeCaller {
  readonly app: Application;
  /** Connected with the master key. */
  readonly isMaster: boolean;
  /** The session token's user, or null (anonymous: application keys only, or the SDK's socket). */
  readonly user: SessionUser | null;
  /** The tag of the session it signed in with ({@link sessionTag}), or null without one: its connection closes when that session ends. */
  readonly sessionTag: string | null;
  /**
   * The connection's access view of a table: access/'s one decision, exactly as a REST request of
   * the same caller gets it (its roles through the shared role cache, so this is cheap per change).
   */
  view(className: string): Promise<TableAccess>;
}

/** Builds the realtime caller of a connection: its identity, and its views through `access`. */
export function realtimeCaller(
  access: AccessControl,
  init: { readonly app: Application; readonly isMaster: boolean; readonly user: SessionUser | null; readonly sessionToken: string | null; readonly credential: CredentialKind },
): RealtimeCaller {
  const { app, isMaster, user } = init;
  const asCaller: Caller = { app, credential: init.credential, isMaster, sessionToken: init.sessionToken, user: async () => user };
  return {
    app,
    isMaster,
    user,
    sessionTag: user ? sessionTag(user.sessionId) : null,
    view: async (className) => access.tableAccess(await access.accessOf(asCaller), { namespace: app.namespace, className }),
  };
}

/**
 * The subscribe check, the same question a REST find asks: refused with 11164 for a table realtime
 * never carries (`_Session`), else with find's own refusal (11006 on a master-only table, 11171 by
 * class-level permissions). Answers the view the subscription is filtered and projected by.
 */
export async function assertMaySubscribe(access: AccessControl, caller: RealtimeCaller, className: string): Promise<TableAccess> {
  if (!access.tables.ruleOf(className).realtime) throw svcError('realtimeTableRefused', className);
  const view = await caller.view(className);
  view.assert('find');
  return view;
}
