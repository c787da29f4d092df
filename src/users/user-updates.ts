import { svcError } from '../core/errors.js';
import { formatDateTime } from '../core/time.js';
import { dateMs } from '../core/values.js';
import type { Caller } from '../app/caller.js';
import type { Json, JsonObject } from '../core/wire-values.js';
import { isPlausibleObjectId } from '../core/object-id.js';
import { requireSelfOrMaster, userView, writableUser } from './access.js';
import type { UsersDeps } from './deps.js';
import { mailVerifyAfterWrite, recipientOf } from './email-verification.js';
import { userJson } from './user-output.js';
import { actingStores, updateUserRecord } from './user-records.js';
import { prepareUserWrite } from './user-write.js';
import { applyAuthData, ownUserJson } from './auth-data.js';
import { merged } from '../core/copy.js';

function assertId(objectId: string): void {
  if (!isPlausibleObjectId(objectId)) throw svcError('objectNotFound', objectId.slice(0, 64));
}

/** `GET /1/users/:objectId`: readable with the application keys; never the password, never a token. */
export async function readUser(deps: UsersDeps, caller: Caller, objectId: string): Promise<JsonObject> {
  assertId(objectId);
  await deps.ready(caller.app);
  const view = await userView(deps, caller);
  view.assert('get');
  const user = await deps.users.get(caller.app, objectId);
  // A user whose ACL hides it from the caller answers exactly as a missing one.
  if (!user || !view.mayRead(user, 'get')) throw svcError('objectNotFound', objectId);
  return userJson(caller.app, view.project(user));
}

/**
 * `PUT /1/users/:objectId`: that user's session token or the master key (206 otherwise). The body
 * goes through the user rules (`prepareUserWrite`); a new password revokes the user's other sessions
 * (all of them when the master key changes it); a new email is mailed a verification link. A body
 * with `authData` links (`{<platform>: {...}}`) or unlinks (`{<platform>: null}`) platform identities
 * first and answers the whole user, as the hosted service does.
 */
export async function updateUser(deps: UsersDeps, caller: Caller, objectId: string, input: JsonObject): Promise<{ readonly updatedAt: string; readonly [key: string]: Json }> {
  const app = caller.app;
  const session = await requireSelfOrMaster(caller, objectId);
  assertId(objectId);
  await deps.ready(app);
  if (Object.hasOwn(input, 'authData')) {
    const { authData, ...rest } = input;
    const current = await writableUser(deps, caller, objectId, 'update');
    await applyAuthData(deps, app, objectId, authData);
    if (Object.keys(rest).length > 0) await updateUser(deps, caller, objectId, rest);
    const user = (await deps.users.get(app, objectId)) ?? current;
    const out = await ownUserJson(deps, app, user, caller.sessionToken ?? undefined);
    return merged(out, { updatedAt: formatDateTime(dateMs(user.updatedAt), app.settings.timeZone) });
  }
  const current = await writableUser(deps, caller, objectId, 'update');
  const prepared = await prepareUserWrite({
    app,
    isMaster: caller.isMaster,
    current,
    body: input,
    hasher: deps.hasher,
    phoneValidator: deps.phoneValidator,
  });
  await deps.users.assertAvailable(app, prepared.unique, objectId);
  const updated = await updateUserRecord(deps, app, objectId, prepared.body, caller);
  if (!updated) throw svcError('objectNotFound', objectId);
  if (prepared.passwordChanged) {
    await deps.sessions.revokeAll(app, objectId, session?.objectId === objectId ? session.sessionId : undefined);
  }
  if (prepared.mailVerifyTo) await mailVerifyAfterWrite(deps, app, recipientOf(updated, prepared.mailVerifyTo));
  return { updatedAt: formatDateTime(dateMs(updated.updatedAt), app.settings.timeZone) };
}

/** `DELETE /1/users/:objectId`: that user's session token or the master key (206 otherwise); revokes its sessions. */
export async function deleteUser(deps: UsersDeps, caller: Caller, objectId: string): Promise<void> {
  const app = caller.app;
  await requireSelfOrMaster(caller, objectId);
  assertId(objectId);
  await deps.ready(app);
  if (!caller.isMaster) await writableUser(deps, caller, objectId, 'delete');
  if (!(await actingStores(deps, caller).users.delete(app, objectId))) throw svcError('objectNotFound', objectId);
  await deps.sessions.revokeAll(app, objectId);
  for (const link of await deps.authLinks.ofUser(app, objectId)) await deps.authLinks.delete(app, link);
}

/** `GET /1/users/me`: the session's user with the presenting token; 211 without a live session. */
export async function currentUser(deps: UsersDeps, caller: Caller): Promise<JsonObject> {
  const token = caller.sessionToken;
  const session = token ? await caller.user() : null;
  if (!session || !token) throw svcError('sessionInvalid');
  const user = await deps.users.get(caller.app, session.objectId);
  if (!user) throw svcError('sessionInvalid');
  return ownUserJson(deps, caller.app, user, token);
}
