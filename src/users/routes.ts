import type { Application } from '../app/application.js';
import type { JsonObject } from '../core/wire-values.js';
import { LIST_REPLY, OK_REPLY, RECORD_REPLY, SESSION_USER_REPLY, UPDATED_REPLY } from '../http/reply-schemas.js';
import type { RouteContext, RouteDef, RouteResult } from '../features/routes.js';
import type { UsersDeps } from './deps.js';
import { followVerifyLink } from './email-verification.js';
import type { LinkPage } from './html.js';
import { loginQuery } from './login.js';
import { resetPasswordForm, resetPasswordSubmit } from './reset-link.js';
import type { SignUpResult } from './sign-up.js';
import type { UsersService } from './users-service.js';

type Handler = RouteDef['handler'];
const id = (rc: RouteContext) => rc.params.objectId ?? '';
const bodyOf = (rc: RouteContext): JsonObject => rc.body ?? {};
const OK: RouteResult = Object.freeze({ body: { msg: 'ok' } });

function route(method: RouteDef['method'], path: string, body: RouteDef['body'], handler: Handler, auth: RouteDef['auth'] = 'app', responses?: RouteDef['responses']): RouteDef {
  return responses ? { method, path, auth, body, handler, responses } : { method, path, auth, body, handler };
}

/** Sign-up: 201 for a new user, 200 (with its session) for a phone login. */
const SIGN_UP = { 201: SESSION_USER_REPLY, 200: SESSION_USER_REPLY };
const SESSION = { 200: SESSION_USER_REPLY };
const DONE = { 200: OK_REPLY };
const REVOKED = { type: 'object', required: ['revoked'], properties: { revoked: { type: 'integer', minimum: 0 } }, additionalProperties: false };

/** A sign-up's answer: 201 with a Location header for a new user, 200 for a phone login. */
function signUpResult(rc: RouteContext, result: SignUpResult): RouteResult {
  if (result.kind === 'loggedIn') return { body: result.reply };
  return { status: 201, headers: { location: `${rc.baseUrl}/1/users/${result.objectId}` }, body: result.reply };
}

/** A link page as a raw HTML response. */
const page = (p: LinkPage): RouteResult => ({ status: p.status, headers: p.headers, body: p.body, raw: true });

/**
 * Every route of the users feature, mapping requests onto the users service (the mailed-link pages
 * onto their flows); see docs/users.md for the wire shapes.
 */
export function userRoutes(users: UsersService, deps: UsersDeps, apps: ReadonlyMap<string, Application>): RouteDef[] {
  const ok = async (work: Promise<void>): Promise<RouteResult> => (await work, OK);
  return [
    route('POST', '/1/users', 'json', async (rc) => signUpResult(rc, await users.signUp(rc.caller, bodyOf(rc))), 'app', SIGN_UP),
    route('POST', '/1/usersv1', 'json', async (rc) => signUpResult(rc, await users.phoneSignUpOrLogin(rc.caller, bodyOf(rc))), 'app', SIGN_UP),
    route('GET', '/1/login', 'none', async (rc) => ({ body: await users.login(rc.caller, loginQuery(rc.query)) }), 'app', SESSION),
    route('POST', '/1/login', 'json', async (rc) => ({ body: await users.login(rc.caller, bodyOf(rc)) }), 'app', SESSION),
    route('POST', '/1/logout', 'optional-json', (rc) => ok(users.logout(rc.caller)), 'app', DONE),
    route('GET', '/1/users/me', 'none', async (rc) => ({ body: await users.me(rc.caller) }), 'app', SESSION),
    route('GET', '/1/checkSession/:objectId', 'none', async (rc) => ({ body: { msg: (await users.checkSession(rc.caller, id(rc))) ? 'ok' : 'fail' } })),
    route('GET', '/1/users', 'none', async (rc) => ({ body: await users.list(rc.caller, rc.query) }), 'app', { 200: LIST_REPLY }),
    route('GET', '/1/users/:objectId', 'none', async (rc) => ({ body: await users.get(rc.caller, id(rc)) }), 'app', { 200: RECORD_REPLY }),
    route('PUT', '/1/users/:objectId', 'json', async (rc) => ({ body: await users.update(rc.caller, id(rc), bodyOf(rc)) }), 'app', { 200: UPDATED_REPLY }),
    route('DELETE', '/1/users/:objectId', 'none', (rc) => ok(users.delete(rc.caller, id(rc))), 'app', DONE),
    route('DELETE', '/1/users/:objectId/sessions', 'none', async (rc) => ({ body: { revoked: await users.revokeSessions(rc.caller, id(rc)) } }), 'master', { 200: REVOKED }),
    route('PUT', '/1/updatePassword', 'json', (rc) => ok(users.changePassword(rc.caller, bodyOf(rc))), 'app', DONE),
    route('PUT', '/1/updateUserPassword/:objectId', 'json', (rc) => ok(users.changePassword(rc.caller, bodyOf(rc), id(rc)))),
    route('POST', '/1/updateUserPassword/:objectId', 'json', (rc) => ok(users.changePassword(rc.caller, bodyOf(rc), id(rc)))),
    route('POST', '/1/requestPasswordReset', 'json', (rc) => ok(users.requestPasswordReset(rc.caller, bodyOf(rc))), 'app', DONE),
    route('PUT', '/1/resetPasswordBySmsCode/:smsCode', 'json', (rc) => ok(users.resetPasswordBySmsCode(rc.caller, rc.params.smsCode ?? '', bodyOf(rc)))),
    route('POST', '/1/requestEmailVerify', 'json', (rc) => ok(users.requestEmailVerify(rc.caller, bodyOf(rc))), 'app', DONE),
    route('GET', '/1/verifyEmail', 'none', async (rc) => page(await followVerifyLink(deps, apps, rc.query.get('token') ?? '')), 'none'),
    route('GET', '/1/resetPassword', 'none', async (rc) => page(await resetPasswordForm(deps, apps, rc.query.get('token') ?? '')), 'none'),
    route('POST', '/1/resetPassword', 'form', async (rc) => page(await resetPasswordSubmit(deps, apps, rc.body ?? {})), 'none'),
  ];
}
