import type { Application } from '../app/application.js';
import { svcError } from '../core/errors.js';
import type { Caller, SessionUser } from '../app/caller.js';
import type { JsonObject } from '../core/wire-values.js';
import { requireSelfOrMaster, requireSession, writableUser } from './access.js';
import type { UsersDeps } from './deps.js';
import { mailLink, recipientOf } from './email-verification.js';
import { linkBase } from './mail-templates.js';
import { requireSms } from './sign-up.js';
import { assertNewPassword } from './user-fields.js';
import { updateUserRecord } from './user-records.js';

/**
 * Stores a new password hash (as `actor`'s write, when a caller makes it) and revokes the user's
 * sessions except `keepSessionId`.
 */
export async function setPassword(deps: UsersDeps, app: Application, userId: string, password: string, keepSessionId?: string, actor?: Caller): Promise<boolean> {
  const updated = await updateUserRecord(deps, app, userId, { password: await deps.hasher.hash(password) }, actor);
  if (!updated) return false;
  await deps.sessions.revokeAll(app, userId, keepSessionId);
  return true;
}

/**
 * `PUT /1/updatePassword` (the session's user) and `PUT /1/updateUserPassword/:objectId` (that
 * user's session token, or the master key): `{oldPassword, newPassword}`. 211 without a live
 * session, 206 for another user's token, 210 for a wrong old password. The change is an update of
 * the user's row, so access/ decides it as for `PUT /1/users/:objectId` (`writableUser`): 11171 when
 * `_User`'s class-level permissions close `update` to the caller, 101 when the row's ACL refuses it
 * a write; both before the old password is checked. Every other session of the user is revoked; the
 * one making the change stays valid.
 */
export async function changePassword(deps: UsersDeps, caller: Caller, input: JsonObject, objectId?: string): Promise<void> {
  const app = caller.app;
  let session: SessionUser | null;
  if (objectId === undefined) session = await requireSession(caller);
  else {
    if (!caller.isMaster) await requireSession(caller);
    session = await requireSelfOrMaster(caller, objectId);
  }
  const userId = objectId ?? session!.objectId;
  const oldPassword = input.oldPassword;
  if (typeof oldPassword !== 'string' || oldPassword === '') throw svcError('paramRequired', 'oldPassword');
  const newPassword = assertNewPassword(app, input.newPassword);
  await deps.ready(app);
  const user = await writableUser(deps, caller, userId, 'update');
  await deps.throttle.hitAccount(app, `user:${userId}`);
  const stored = typeof user.password === 'string' ? user.password : null;
  if (stored === null || !(await deps.hasher.verify(oldPassword, stored))) throw svcError('oldPasswordWrong');
  await setPassword(deps, app, userId, newPassword, session?.objectId === userId ? session.sessionId : undefined, caller);
}

/**
 * `POST /1/requestPasswordReset {email}`: mails a single-use reset link (valid `users.resetLinkTtlMs`).
 * An unknown address is 205 like the hosted service, or a silent `{msg:"ok"}` with
 * `users.revealUnknownEmail: false`. Counts against the client address's login throttle.
 */
export async function requestPasswordReset(deps: UsersDeps, caller: Caller, input: JsonObject): Promise<void> {
  const app = caller.app;
  const email = input.email;
  if (typeof email !== 'string' || email === '') throw svcError('paramRequired', 'email');
  linkBase(app); // 11101 whatever the address, so an unconfigured server reveals nothing
  await deps.throttle.hitAddress(app, caller.address);
  await deps.ready(app);
  const user = await deps.users.findBy(app, 'email', email);
  if (!user) {
    if (app.settings.users.revealUnknownEmail) throw svcError('userNotFound', 'email', email);
    return;
  }
  await mailLink(deps, app, 'reset', recipientOf(user, email));
}

/**
 * `PUT /1/resetPasswordBySmsCode/:smsCode {password}`: the code alone names the phone (the SMS
 * feature's `redeemCode`); 207 when no live code matches, 205 when no user has the number. Revokes
 * every session of the user. A recovery flow: the code proves the user, so it acts as the service
 * (as Parse Server's reset) and the row's ACL and `_User`'s class-level permissions do not apply; it
 * takes no user id from the client.
 */
export async function resetPasswordBySmsCode(deps: UsersDeps, caller: Caller, code: string, input: JsonObject): Promise<void> {
  const app = caller.app;
  const password = assertNewPassword(app, input.password);
  const sms = requireSms(deps);
  await deps.throttle.hitAddress(app, caller.address);
  const phone = await sms.redeemCode(app, code);
  if (phone === null) throw svcError('smsCodeWrong', code.slice(0, 16));
  await deps.ready(app);
  const user = await deps.users.findBy(app, 'mobilePhoneNumber', phone);
  if (!user || !(await setPassword(deps, app, user.objectId, password, undefined, caller))) throw svcError('userNotFound', 'mobilePhoneNumber', phone);
}
