import { svcError } from '../core/errors.js';
import type { StoredRecord } from '../core/values.js';
import type { Json, JsonObject } from '../core/wire-values.js';
import type { Caller } from '../app/caller.js';
import type { UsersDeps } from './deps.js';
import { markPhoneVerified, phoneAndCode, requireSms } from './sign-up.js';
import { userJson } from './user-output.js';
import { updateUserRecord } from './user-records.js';
import type { UniqueUserField } from './user-table.js';


/** Where a login identifier is looked up, in order. `username` may hold any of the three. */
const LOOKUP: Readonly<Record<string, readonly UniqueUserField[]>> = {
  username: ['username', 'email', 'mobilePhoneNumber'],
  email: ['email'],
  mobilePhoneNumber: ['mobilePhoneNumber'],
};

/**
 * `GET /1/login?username=…&password=…` and `POST /1/login` (JSON). Password logins take `username`
 * (a username, email or phone number), `email` or `mobilePhoneNumber` plus `password`; `{mobilePhoneNumber,
 * smsCode}` logs in by SMS code. Answers the user with a new sessionToken. Every failure of
 * a password login is the same 101: unknown users cost as much time as wrong passwords.
 */
export async function login(deps: UsersDeps, caller: Caller, input: JsonObject): Promise<JsonObject> {
  if (input.smsCode !== undefined && input.smsCode !== null) {
    if (input.mobilePhoneNumber === undefined) throw svcError('invalidParameter', 'login by email code is not supported by this server');
    return codeLogin(deps, caller, input);
  }
  const field = (['username', 'email', 'mobilePhoneNumber'] as const).find((f) => input[f] !== undefined && input[f] !== '');
  const identifier = field ? input[field] : undefined;
  const password = input.password;
  if (identifier === undefined && (password === undefined || password === '')) throw svcError('loginDataRequired');
  if (typeof identifier !== 'string' || typeof password !== 'string' || password === '' || !field) throw svcError('usernamePasswordRequired');
  const app = caller.app;
  await deps.throttle.hitAddress(app, caller.address);
  await deps.ready(app);
  let user: StoredRecord | null = null;
  for (const column of LOOKUP[field]!) {
    user = await deps.users.findBy(app, column, identifier);
    if (user) break;
  }
  const account = user ? `user:${user.objectId}` : `name:${identifier}`;
  await deps.throttle.hitAccount(app, account);
  const stored = typeof user?.password === 'string' ? user.password : null;
  if (!user || stored === null) {
    await deps.hasher.verifyDummy(password);
    throw svcError('loginFailed');
  }
  if (!(await deps.hasher.verify(password, stored))) throw svcError('loginFailed');
  await deps.throttle.resetAccount(app, account);
  if (deps.hasher.needsRehash(stored)) {
    user = (await updateUserRecord(deps, app, user.objectId, { password: await deps.hasher.hash(password) }, caller)) ?? user;
  }
  const { token } = await deps.sessions.create(app, user.objectId);
  return userJson(app, user, token);
}

/** Login by phone and SMS code: the code is consumed first (207), then an unknown number is 101. */
async function codeLogin(deps: UsersDeps, caller: Caller, input: JsonObject): Promise<JsonObject> {
  const app = caller.app;
  const { phone, code } = phoneAndCode(input);
  const sms = requireSms(deps);
  await deps.throttle.hitAddress(app, caller.address);
  await sms.verifyCode(app, phone, code);
  await deps.ready(app);
  const found = await deps.users.findBy(app, 'mobilePhoneNumber', phone);
  if (!found) throw svcError('loginFailed');
  const user = await markPhoneVerified(deps, caller, found);
  const { token } = await deps.sessions.create(app, user.objectId);
  return userJson(app, user, token);
}

/** The query parameters of `GET /1/login` as a login input. */
export function loginQuery(query: URLSearchParams): JsonObject {
  const out: Record<string, Json> = {};
  for (const key of ['username', 'email', 'mobilePhoneNumber', 'password', 'smsCode']) {
    const value = query.get(key);
    if (value !== null) out[key] = value;
  }
  return out;
}
