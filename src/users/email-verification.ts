import type { Application } from '../app/application.js';
import { isSvcError, svcError } from '../core/errors.js';
import type { StoredRecord } from '../core/values.js';
import type { Caller } from '../app/caller.js';
import type { JsonObject } from '../core/wire-values.js';
import type { UsersDeps } from './deps.js';
import { emailTransition } from './email-state.js';
import { type LinkPage, messagePage } from './html.js';
import { buildUserMail, linkBase, linkUrl } from './mail-templates.js';
import { updateUserRecord } from './user-records.js';

/** Who a link is mailed to. `objectId` is empty when the user is not stored yet (`/1/classes/_User` create). */
export interface LinkRecipient {
  readonly objectId: string;
  readonly username: string;
  readonly email: string;
}

/**
 * Issues a verification or reset token and mails its link. Rejects with 11052 when the transport
 * fails (the cause goes to the logger, never to the client); a SvcError the transport throws itself
 * (e.g. 11007 when no transport is configured) passes through unchanged.
 */
export async function mailLink(deps: UsersDeps, app: Application, kind: 'verify' | 'reset', to: LinkRecipient): Promise<void> {
  linkBase(app); // 11101 before a token is issued
  const ttl = kind === 'verify' ? app.settings.users.verifyLinkTtlMs : app.settings.users.resetLinkTtlMs;
  const token = await deps.links.issue(kind, { applicationId: app.applicationId, userId: to.objectId, email: to.email }, ttl);
  const message = buildUserMail(app, kind, { link: linkUrl(app, kind, token), username: to.username, email: to.email });
  try {
    await deps.mail.send(message);
  } catch (error) {
    if (isSvcError(error)) throw error;
    deps.logger.error('users: mail transport failed', { transport: deps.mail.name, kind, error: error instanceof Error ? error.message : String(error) });
    throw svcError('mailSendFailed');
  }
}

/** Mails a verification link after a write; a failure is logged, not fatal (the user can re-request). */
export async function mailVerifyAfterWrite(deps: UsersDeps, app: Application, to: LinkRecipient): Promise<void> {
  try {
    await mailLink(deps, app, 'verify', to);
  } catch (error) {
    // Transport failures were logged by mailLink; a coded error (e.g. 11101) is logged here.
    if (isSvcError(error) && error.errorName !== 'mailSendFailed') deps.logger.warn('users: verification mail not sent', { code: error.code });
  }
}

/** The recipient of a stored user. */
export function recipientOf(user: StoredRecord, email: string): LinkRecipient {
  return { objectId: user.objectId, username: typeof user.username === 'string' ? user.username : email, email };
}

/**
 * `POST /1/requestEmailVerify {email}`: 120 while the feature is off; 205 for an unknown address
 * (or `{msg:"ok"}` with `users.revealUnknownEmail: false`); mails a new link unless already verified.
 */
export async function requestEmailVerify(deps: UsersDeps, caller: Caller, input: JsonObject): Promise<void> {
  const app = caller.app;
  if (!app.settings.features.emailVerification) throw svcError('emailVerifyDisabled');
  const email = input.email;
  if (typeof email !== 'string' || email === '') throw svcError('paramRequired', 'email');
  linkBase(app); // 11101 whatever the address, so an unconfigured server reveals nothing
  await deps.ready(app);
  const user = await deps.users.findBy(app, 'email', email);
  if (!user) {
    if (app.settings.users.revealUnknownEmail) throw svcError('userNotFound', 'email', email);
    return;
  }
  const state = typeof user.emailVerified === 'boolean' ? user.emailVerified : 'missing';
  if (emailTransition({ kind: 'verify-requested', email }, state, true).mailLink) {
    await mailLink(deps, app, 'verify', recipientOf(user, email));
  }
}

/**
 * `GET /1/verifyEmail?token=…`: uses the link up and sets `emailVerified` true when the user still
 * has the address the link was mailed to. Answers a small HTML page.
 */
export async function followVerifyLink(deps: UsersDeps, apps: ReadonlyMap<string, Application>, token: string): Promise<LinkPage> {
  const invalid = () => messagePage(400, 'Link not valid', 'This verification link is unknown, already used or expired. Request a new one from the app.');
  const payload = await deps.links.consume('verify', token);
  const app = payload && apps.get(payload.applicationId);
  if (!payload || !app) return invalid();
  await deps.ready(app);
  const user = payload.userId ? await deps.users.get(app, payload.userId) : await deps.users.findBy(app, 'email', payload.email);
  const email = typeof user?.email === 'string' ? user.email : null;
  const state = typeof user?.emailVerified === 'boolean' ? user.emailVerified : 'missing';
  const t = emailTransition({ kind: 'link-followed', linkEmail: payload.email, email, linkValid: true }, state, true);
  if (!user || t.next !== true) return invalid();
  if (state !== true && !(await updateUserRecord(deps, app, user.objectId, { emailVerified: true }))) return invalid();
  return messagePage(200, 'Email verified', `Thank you: ${payload.email} is now verified. You can close this page.`);
}
