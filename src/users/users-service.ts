import { isPlausibleObjectId } from '../core/object-id.js';
import type { Caller } from '../app/caller.js';
import { svcError } from '../core/errors.js';
import type { Json, JsonObject } from '../core/wire-values.js';
import type { UsersDeps } from './deps.js';
import { requestEmailVerify } from './email-verification.js';
import { login } from './login.js';
import { changePassword, requestPasswordReset, resetPasswordBySmsCode } from './passwords.js';
import { type SignUpResult, phoneSignUpOrLogin, signUp } from './sign-up.js';
import { currentUser, deleteUser, readUser, updateUser } from './user-updates.js';
import type { UserLister } from './user-list.js';

/**
 * The users service: every user flow as a caller plus typed input in, domain values or a coded error
 * (SvcError) out. Knows nothing of HTTP; `routes.ts` maps the `/1/users`, `/1/login`, ... requests
 * onto it. See docs/users.md for the rules of each flow.
 *
 * @example
 * const { reply } = await users.signUp(internalCaller(app, { master: false }), { username: 'ann', password: 'pw' });
 * const ann = sessionCaller(app, { credential: 'internal', isMaster: false, sessionToken: String(reply.sessionToken) }, () => service.registry.sessions);
 * const me = await users.me(ann);
 */
export interface UsersService {
  /** Sign-up (a body with `smsCode`: sign-up-or-login by phone). */
  signUp(caller: Caller, fields: JsonObject): Promise<SignUpResult>;
  /** Sign-up-or-login by phone and SMS code. */
  phoneSignUpOrLogin(caller: Caller, fields: JsonObject): Promise<SignUpResult>;
  /** Password or SMS-code login: the user with a new sessionToken. */
  login(caller: Caller, credentials: JsonObject): Promise<JsonObject>;
  /** Revokes the caller's session; 211 when there is none. */
  logout(caller: Caller): Promise<void>;
  /** The caller's user with its session token; 211 without a live session. */
  me(caller: Caller): Promise<JsonObject>;
  /** Whether the caller's token is a live session of user `objectId`. */
  checkSession(caller: Caller, objectId: string): Promise<boolean>;
  get(caller: Caller, objectId: string): Promise<JsonObject>;
  list(caller: Caller, query: URLSearchParams): Promise<JsonObject>;
  /** `{updatedAt}`; the whole user when the body links or unlinks `authData`. */
  update(caller: Caller, objectId: string, fields: JsonObject): Promise<{ readonly updatedAt: string; readonly [key: string]: Json }>;
  delete(caller: Caller, objectId: string): Promise<void>;
  /** `{oldPassword, newPassword}` for the caller's user, or for `objectId` (its session or the master key). */
  changePassword(caller: Caller, input: JsonObject, objectId?: string): Promise<void>;
  requestPasswordReset(caller: Caller, input: JsonObject): Promise<void>;
  resetPasswordBySmsCode(caller: Caller, smsCode: string, input: JsonObject): Promise<void>;
  requestEmailVerify(caller: Caller, input: JsonObject): Promise<void>;
  /** Signs user `objectId` out everywhere (master key only): how many sessions were revoked. */
  revokeSessions(caller: Caller, objectId: string): Promise<number>;
}

/** Builds the users service over the flows' shared dependencies and a user lister. */
export function createUsersService(deps: UsersDeps, list: UserLister): UsersService {
  return {
    signUp: (caller, fields) => signUp(deps, caller, fields),
    phoneSignUpOrLogin: (caller, fields) => phoneSignUpOrLogin(deps, caller, fields),
    login: (caller, credentials) => login(deps, caller, credentials),
    async logout(caller) {
      const session = caller.sessionToken ? await caller.user() : null;
      if (!session) throw svcError('sessionInvalid');
      await deps.sessions.revoke(caller.app, session.sessionId);
    },
    me: (caller) => currentUser(deps, caller),
    async checkSession(caller, objectId) {
      const session = caller.sessionToken ? await caller.user() : null;
      return session !== null && session.objectId === objectId;
    },
    get: (caller, objectId) => readUser(deps, caller, objectId),
    list,
    update: (caller, objectId, fields) => updateUser(deps, caller, objectId, fields),
    delete: (caller, objectId) => deleteUser(deps, caller, objectId),
    changePassword: (caller, input, objectId) => changePassword(deps, caller, input, objectId),
    requestPasswordReset: (caller, input) => requestPasswordReset(deps, caller, input),
    resetPasswordBySmsCode: (caller, smsCode, input) => resetPasswordBySmsCode(deps, caller, smsCode, input),
    requestEmailVerify: (caller, input) => requestEmailVerify(deps, caller, input),
    async revokeSessions(caller, objectId) {
      if (!caller.isMaster) throw svcError('masterKeyRequired');
      if (!isPlausibleObjectId(objectId)) throw svcError('objectNotFound', objectId.slice(0, 64));
      return deps.sessions.revokeAll(caller.app, objectId);
    },
  };
}
