import { svcError } from '../core/errors.js';
import { formatDateTime } from '../core/time.js';
import { type StoredRecord, dateMs } from '../core/values.js';
import type { Json } from '../core/wire-values.js';
import type { RouteContext, RouteResult } from '../http/types.js';
import type { UsersDeps } from './deps.js';
import { mailVerifyAfterWrite, recipientOf } from './email-verification.js';
import { userJson } from './user-output.js';
import { insertUser, updateUserRecord } from './user-records.js';
import { prepareUserWrite } from './user-write.js';

type JsonObject = { readonly [key: string]: Json };

/**
 * `POST /1/users`: sign-up. 201 `{createdAt, objectId, sessionToken}` with a Location header. An
 * empty body is 107; a body with `smsCode` signs up or logs in by phone instead; `authData` is not
 * supported (11005). Duplicates: 202 username, 203 email, 209 phone. Counted against the client
 * address's `users.signUpLimits` (10076 with Retry-After when over).
 */
export async function signUp(deps: UsersDeps, rc: RouteContext): Promise<RouteResult> {
  const app = rc.app;
  const body = rc.body ?? {};
  if (Object.keys(body).length === 0) throw svcError('contentEmpty');
  if (Object.hasOwn(body, 'authData')) throw svcError('invalidParameter', 'authData sign-up is not supported by this server');
  if (Object.hasOwn(body, 'smsCode')) return phoneSignUpOrLogin(deps, rc);
  await deps.signUpLimit(app, rc); // before the password hash: each sign-up costs one
  const prepared = await prepareUserWrite({
    app,
    isMaster: rc.auth.isMaster,
    current: null,
    body,
    hasher: deps.hasher,
    phoneValidator: deps.phoneValidator,
  });
  await deps.ready(app);
  await deps.users.assertAvailable(app, prepared.unique);
  const user = await insertUser(deps, app, prepared.body);
  const { token } = await deps.sessions.create(app, user.objectId);
  if (prepared.mailVerifyTo) await mailVerifyAfterWrite(deps, app, recipientOf(user, prepared.mailVerifyTo));
  return {
    status: 201,
    headers: { location: `${rc.baseUrl}/1/users/${user.objectId}` },
    body: { createdAt: formatDateTime(dateMs(user.createdAt), app.settings.timeZone), objectId: user.objectId, sessionToken: token },
  };
}

/**
 * Sign-up-or-login by phone and SMS code (`POST /1/usersv1`, `POST /1/users` with `smsCode`): the
 * code is consumed (207 when wrong), then the user holding the number logs in, or a new user is
 * created with `username` = the number (unless the body names one) and the body's other columns.
 * Either way `mobilePhoneVerified` becomes true. 200 with the user and its sessionToken.
 */
export async function phoneSignUpOrLogin(deps: UsersDeps, rc: RouteContext): Promise<RouteResult> {
  const app = rc.app;
  const body = rc.body ?? {};
  if (Object.hasOwn(body, 'authData')) throw svcError('invalidParameter', 'authData login is not supported by this server');
  const { phone, code } = phoneAndCode(body);
  const sms = requireSms(deps);
  await deps.throttle.hitAddress(app, rc.remoteAddress);
  await sms.verifyCode(app, phone, code);
  await deps.ready(app);
  let user = await deps.users.findBy(app, 'mobilePhoneNumber', phone);
  if (user) {
    user = await markPhoneVerified(deps, rc, user);
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
    user = await insertUser(deps, app, prepared.body, { mobilePhoneVerified: true });
    if (prepared.mailVerifyTo) await mailVerifyAfterWrite(deps, app, recipientOf(user, prepared.mailVerifyTo));
  }
  const { token } = await deps.sessions.create(app, user.objectId);
  return { body: userJson(app, user, token) };
}

/** Sets `mobilePhoneVerified` after a code proved the number (no-op when already true). */
export async function markPhoneVerified(deps: UsersDeps, rc: RouteContext, user: StoredRecord): Promise<StoredRecord> {
  if (user.mobilePhoneVerified === true) return user;
  return (await updateUserRecord(deps, rc.app, user.objectId, { mobilePhoneVerified: true })) ?? user;
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
