import { svcError } from '../core/errors.js';
import { formatDateTime } from '../core/time.js';
import { type StoredRecord, dateMs } from '../core/values.js';
import type { Json, JsonObject } from '../core/wire-values.js';
import type { Caller } from '../app/caller.js';
import type { UsersDeps } from './deps.js';
import { mailVerifyAfterWrite, recipientOf } from './email-verification.js';
import { userJson } from './user-output.js';
import { insertUser, updateUserRecord } from './user-records.js';
import { prepareUserWrite } from './user-write.js';
import { authDataSignUpOrLogin } from './auth-data.js';


/**
 * What a sign-up answers: a new user (`created`: objectId, and the reply `{createdAt, objectId,
 * sessionToken}`), or, for a body with `smsCode` whose number is already a user's, that user logged
 * in (`existing`: the user with its new sessionToken).
 */
export type SignUpResult =
  | { readonly kind: 'created'; readonly objectId: string; readonly reply: JsonObject }
  | { readonly kind: 'loggedIn'; readonly reply: JsonObject };

/**
 * Sign-up (`POST /1/users`, `POST /1/classes/_User`): a new user with a session. An
 * empty body is 107; a body with `smsCode` signs up or logs in by phone instead, one with `authData`
 * by a platform identity (docs/wechat.md). Duplicates: 202 username, 203 email, 209 phone. Counted against the client
 * address's `users.signUpLimits` (10076 with Retry-After when over).
 */
export async function signUp(deps: UsersDeps, caller: Caller, body: JsonObject): Promise<SignUpResult> {
  const app = caller.app;
  if (Object.keys(body).length === 0) throw svcError('contentEmpty');
  if (Object.hasOwn(body, 'authData')) return authDataSignUpOrLogin(deps, caller, body);
  if (Object.hasOwn(body, 'smsCode')) return phoneSignUpOrLogin(deps, caller, body);
  await deps.signUpLimit(app, caller); // before the password hash: each sign-up costs one
  const prepared = await prepareUserWrite({
    app,
    isMaster: caller.isMaster,
    current: null,
    body,
    hasher: deps.hasher,
    phoneValidator: deps.phoneValidator,
  });
  await deps.ready(app);
  await deps.users.assertAvailable(app, prepared.unique);
  const user = await insertUser(deps, app, prepared.body, {}, caller);
  const { token } = await deps.sessions.create(app, user.objectId);
  if (prepared.mailVerifyTo) await mailVerifyAfterWrite(deps, app, recipientOf(user, prepared.mailVerifyTo));
  const reply = { createdAt: formatDateTime(dateMs(user.createdAt), app.settings.timeZone), objectId: user.objectId, sessionToken: token };
  return { kind: 'created', objectId: user.objectId, reply };
}

/**
 * Sign-up-or-login by phone and SMS code (`POST /1/usersv1`, `POST /1/users` with `smsCode`): the
 * code is consumed (207 when wrong), then the user holding the number logs in, or a new user is
 * created with `username` = the number (unless the body names one) and the body's other columns.
 * Either way `mobilePhoneVerified` becomes true. Answers the user and its sessionToken (HTTP 200).
 */
export async function phoneSignUpOrLogin(deps: UsersDeps, caller: Caller, body: JsonObject): Promise<SignUpResult> {
  const app = caller.app;
  if (Object.hasOwn(body, 'authData')) return authDataSignUpOrLogin(deps, caller, body);
  const { phone, code } = phoneAndCode(body);
  const sms = requireSms(deps);
  await deps.throttle.hitAddress(app, caller.address);
  await sms.verifyCode(app, phone, code);
  await deps.ready(app);
  let user = await deps.users.findBy(app, 'mobilePhoneNumber', phone);
  if (user) {
    user = await markPhoneVerified(deps, caller, user);
  } else {
    const { smsCode: _code, mobilePhoneNumber: _phone, ...rest } = body;
    const prepared = await prepareUserWrite({
      app,
      isMaster: false,
      current: null,
      body: { username: phone, ...rest, mobilePhoneNumber: phone },
      hasher: deps.hasher,
      phoneValidator: () => true, // the code proved the number
      phoneSignUp: true,
    });
    await deps.users.assertAvailable(app, prepared.unique);
    user = await insertUser(deps, app, prepared.body, { mobilePhoneVerified: true }, caller);
    if (prepared.mailVerifyTo) await mailVerifyAfterWrite(deps, app, recipientOf(user, prepared.mailVerifyTo));
  }
  const { token } = await deps.sessions.create(app, user.objectId);
  return { kind: 'loggedIn', reply: userJson(app, user, token) };
}

/** Sets `mobilePhoneVerified` after a code proved the number (no-op when already true). */
export async function markPhoneVerified(deps: UsersDeps, caller: Caller, user: StoredRecord): Promise<StoredRecord> {
  const app = caller.app;
  if (user.mobilePhoneVerified === true) return user;
  return (await updateUserRecord(deps, app, user.objectId, { mobilePhoneVerified: true }, caller)) ?? user;
}

/** `mobilePhoneNumber` and `smsCode` of a body: 109 when either is missing, 207 for a non-string code. */
export function phoneAndCode(body: JsonObject): { phone: string; code: string } {
  const phone = body.mobilePhoneNumber;
  const code = body.smsCode;
  if (phone === undefined || code === undefined || phone === null || code === null) throw svcError('loginDataRequired');
  if (typeof phone !== 'string') throw svcError('invalidPhone', 'mobilePhoneNumber must be a string');
  if (typeof code !== 'string' && typeof code !== 'number') throw svcError('smsCodeWrong', '');
  return { phone, code: String(code) };
}

/** The SMS code API, or 11007 when the service runs without the SMS feature. */
export function requireSms(deps: UsersDeps): NonNullable<UsersDeps['sms']> {
  if (!deps.sms) throw svcError('featureDisabled', 'sms');
  return deps.sms;
}
