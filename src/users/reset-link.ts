import type { Application } from '../app/application.js';
import { isSvcError } from '../core/errors.js';
import type { Json } from '../core/wire-values.js';
import type { UsersDeps } from './deps.js';
import { type LinkPage, messagePage, resetFormPage } from './html.js';
import type { LinkPayload } from './link-tokens.js';
import { setPassword } from './passwords.js';
import { assertNewPassword } from './user-fields.js';

const invalidPage = () =>
  messagePage(400, 'Link not valid', 'This password reset link is unknown, already used or expired. Ask for a new one from the app.');

type Apps = ReadonlyMap<string, Application>;

const appName = (app: Application) => app.settings.users.appName ?? app.applicationId;

/** `GET /1/resetPassword?token=…`: the new-password form while the link is live (the token is not used up yet). */
export async function resetPasswordForm(deps: UsersDeps, apps: Apps, token: string): Promise<LinkPage> {
  const payload = await deps.links.peek('reset', token);
  const app = payload && apps.get(payload.applicationId);
  if (!payload || !app) return invalidPage();
  return resetFormPage(200, appName(app), token);
}

/**
 * `POST /1/resetPassword` (form fields `token`, `password`, `confirm`): a bad or mismatched password
 * shows the form again and keeps the link; otherwise the link is used up, the password set, and
 * every session of the user revoked. The link dies if the user's email changed since it was mailed.
 * A recovery flow: the link proves the user (the one it was mailed for, stored with the token, never
 * a form field), so it acts as the service and the row's ACL and class-level permissions do not apply.
 */
export async function resetPasswordSubmit(deps: UsersDeps, apps: Apps, form: { readonly [key: string]: Json }): Promise<LinkPage> {
  const token = typeof form.token === 'string' ? form.token : '';
  const live = await deps.links.peek('reset', token);
  const app = live && apps.get(live.applicationId);
  if (!live || !app) return invalidPage();
  let password: string;
  try {
    password = assertNewPassword(app, form.password);
  } catch (error) {
    if (!isSvcError(error)) throw error;
    return resetFormPage(400, appName(app), token, error.message);
  }
  if (form.confirm !== undefined && form.confirm !== password) {
    return resetFormPage(400, appName(app), token, 'The two passwords differ.');
  }
  const payload = await deps.links.consume('reset', token);
  if (!payload || !(await stillOwnsEmail(deps, app, payload))) return invalidPage();
  if (!(await setPassword(deps, app, payload.userId, password))) return invalidPage();
  return messagePage(200, 'Password changed', 'Your password has been changed. You can now log in with the new password.');
}

async function stillOwnsEmail(deps: UsersDeps, app: Application, payload: LinkPayload): Promise<boolean> {
  await deps.ready(app);
  const user = await deps.users.get(app, payload.userId);
  return user !== null && user.email === payload.email;
}
