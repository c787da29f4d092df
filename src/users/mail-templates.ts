import type { Application } from '../app/application.js';
import type { MailMessage } from '../mail/port.js';
import { configError, svcError } from '../core/errors.js';
import { escapeHtml } from './html.js';

/** Values a user mail may mention. */
export interface MailValues {
  readonly link: string;
  readonly username: string;
  readonly email: string;
}

const PLACEHOLDER = /\$\{(link|username|email|appName)\}/g;
const URL_IN_TEXT = /https?:\/\/[^\s<>"']+/g;

/**
 * Builds the verification or reset mail of an application from its `users.mailTemplates`
 * (`${link}`, `${username}`, `${email}`, `${appName}` are replaced). The HTML part is the escaped
 * text with the link made clickable.
 */
export function buildUserMail(app: Application, kind: 'verify' | 'reset', values: MailValues): MailMessage {
  const settings = app.settings.users;
  const templates = settings.mailTemplates;
  const all: Record<string, string> = { ...values, appName: settings.appName ?? app.applicationId };
  const fill = (template: string) => template.replace(PLACEHOLDER, (_, name: string) => all[name] ?? '');
  const subject = fill(kind === 'verify' ? templates.verifySubject : templates.resetSubject).replace(/[\r\n]+/g, ' ');
  const text = fill(kind === 'verify' ? templates.verifyText : templates.resetText);
  const html =
    '<!doctype html><html><body><p>' +
    escapeHtml(text)
      .replace(URL_IN_TEXT, (url) => `<a href="${url}">${url}</a>`)
      .replace(/\n\n/g, '</p><p>')
      .replace(/\n/g, '<br>') +
    '</p></body></html>';
  return { to: values.email, subject, text, html, ...(settings.mailFrom ? { from: settings.mailFrom } : {}) };
}

/**
 * The base of mailed links, from configuration only: `users.linkBaseUrl` when set, else the
 * application's public URL (`publicUrl`, the one base of every URL the service hands out). Never the
 * request's Host header: a forged Host would mail a live token to the sender's server. 11101 when
 * neither is set.
 */
export function linkBase(app: Application): string {
  const base = app.settings.users.linkBaseUrl ?? app.publicUrl;
  if (base === undefined || base === '') throw svcError('linkBaseUrlMissing');
  return base.replace(/\/+$/, '');
}

/** The absolute link of a mailed token: `<base>/1/verifyEmail?token=…` or `<base>/1/resetPassword?token=…`. */
export function linkUrl(app: Application, kind: 'verify' | 'reset', token: string): string {
  return `${linkBase(app)}/1/${kind === 'verify' ? 'verifyEmail' : 'resetPassword'}?token=${token}`;
}

/** Throws a `[svcbase]` error unless `url` is an absolute http(s) URL without query or fragment. */
export function assertLinkBaseUrl(applicationId: string, url: string): void {
  let parsed: URL | null = null;
  try {
    parsed = new URL(url);
  } catch {
    /* reported below */
  }
  if (!parsed || !['http:', 'https:'].includes(parsed.protocol) || parsed.search !== '' || parsed.hash !== '') {
    throw configError('users', `application '${applicationId}': users.linkBaseUrl must be an absolute http(s) URL without query, got '${url}'`);
  }
}
