import type { Application } from '../app/application.js';
import { svcError } from '../core/errors.js';
import type { RouteContext, RouteDef, RouteResult } from '../http/types.js';
import type { UsersDeps } from './deps.js';
import { followVerifyLink, requestEmailVerify } from './email-verification.js';
import { login, loginQuery } from './login.js';
import { changePassword, requestPasswordReset, resetPasswordBySmsCode } from './passwords.js';
import { resetPasswordForm, resetPasswordSubmit } from './reset-link.js';
import { phoneSignUpOrLogin, signUp } from './sign-up.js';
import { currentUser, deleteUser, readUser, updateUser } from './user-updates.js';

/** Lists users for `GET /1/users` (the query engine's list handler over `_User`). */
export type UserLister = (rc: RouteContext) => Promise<RouteResult>;

type Handler = RouteDef['handler'];
const id = (rc: RouteContext) => rc.params.objectId ?? '';

function route(method: RouteDef['method'], path: string, body: RouteDef['body'], handler: Handler, auth: RouteDef['auth'] = 'app'): RouteDef {
  return { method, path, auth, body, handler };
}

/** Every route of the users feature; see docs/users.md for the wire shapes. */
export function userRoutes(deps: UsersDeps, apps: ReadonlyMap<string, Application>, list: UserLister): RouteDef[] {
  return [
    route('POST', '/1/users', 'json', (rc) => signUp(deps, rc)),
    route('POST', '/1/usersv1', 'json', (rc) => phoneSignUpOrLogin(deps, rc)),
    route('GET', '/1/login', 'none', (rc) => login(deps, rc, loginQuery(rc.query))),
    route('POST', '/1/login', 'json', (rc) => login(deps, rc, rc.body ?? {})),
    route('POST', '/1/logout', 'optional-json', (rc) => logout(deps, rc)),
    route('GET', '/1/users/me', 'none', (rc) => currentUser(deps, rc)),
    route('GET', '/1/checkSession/:objectId', 'none', (rc) => checkSession(rc)),
    route('GET', '/1/users', 'none', list),
    route('GET', '/1/users/:objectId', 'none', (rc) => readUser(deps, rc, id(rc))),
    route('PUT', '/1/users/:objectId', 'json', (rc) => updateUser(deps, rc, id(rc))),
    route('DELETE', '/1/users/:objectId', 'none', (rc) => deleteUser(deps, rc, id(rc))),
    route('PUT', '/1/updatePassword', 'json', (rc) => changePassword(deps, rc)),
    route('PUT', '/1/updateUserPassword/:objectId', 'json', (rc) => changePassword(deps, rc, id(rc))),
    route('POST', '/1/updateUserPassword/:objectId', 'json', (rc) => changePassword(deps, rc, id(rc))),
    route('POST', '/1/requestPasswordReset', 'json', (rc) => requestPasswordReset(deps, rc)),
    route('PUT', '/1/resetPasswordBySmsCode/:smsCode', 'json', (rc) => resetPasswordBySmsCode(deps, rc)),
    route('POST', '/1/requestEmailVerify', 'json', (rc) => requestEmailVerify(deps, rc)),
    route('GET', '/1/verifyEmail', 'none', (rc) => followVerifyLink(deps, apps, rc.query.get('token') ?? ''), 'none'),
    route('GET', '/1/resetPassword', 'none', (rc) => resetPasswordForm(deps, apps, rc.query.get('token') ?? ''), 'none'),
    route('POST', '/1/resetPassword', 'form', (rc) => resetPasswordSubmit(deps, apps, rc.body ?? {}), 'none'),
  ];
}

/** `POST /1/logout`: revokes the presenting session; 211 when there is none. */
async function logout(deps: UsersDeps, rc: RouteContext): Promise<RouteResult> {
  const session = rc.auth.sessionToken ? await rc.user() : null;
  if (!session) throw svcError('sessionInvalid');
  await deps.sessions.revoke(rc.app, session.sessionId);
  return { body: { msg: 'ok' } };
}

/** `GET /1/checkSession/:objectId`: `{msg:"ok"}` when the token is a live session of that user, else `{msg:"fail"}`. */
async function checkSession(rc: RouteContext): Promise<RouteResult> {
  const session = rc.auth.sessionToken ? await rc.user() : null;
  return { body: { msg: session !== null && session.objectId === id(rc) ? 'ok' : 'fail' } };
}
