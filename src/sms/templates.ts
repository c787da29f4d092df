import { type Application, DEFAULT_CODE_TEMPLATE, type SmsTemplate } from '../app/application.js';
import { configError, svcError } from '../core/errors.js';
import { templateVariables } from './template-text.js';

/** Variables a code template may use: the code and its validity in minutes. */
export const CODE_TEMPLATE_VARIABLES: readonly string[] = ['code', 'minutes'];
/** Validity of codes when the template does not say (minutes). */
export const DEFAULT_VALIDITY_MINUTES = 5;

/**
 * The template named `name` of an application, for sending a message of `kind`. A code request
 * without a name uses the application's `default` template, else the built-in 5-minute one.
 * Unknown -> 10022, not approved -> 11040, the other kind -> 11041.
 */
export function resolveTemplate(app: Application, name: string | undefined, kind: SmsTemplate['kind']): SmsTemplate {
  const wanted = name ?? DEFAULT_CODE_TEMPLATE.name;
  const template = app.settings.sms.templates.find((t) => t.name === wanted)
    ?? (wanted === DEFAULT_CODE_TEMPLATE.name ? DEFAULT_CODE_TEMPLATE : undefined);
  if (!template) throw svcError('smsTemplateUnknown', wanted);
  if (!template.approved) throw svcError('smsTemplateNotApproved', wanted);
  if (template.kind !== kind) throw svcError('smsTemplateWrongKind', wanted, template.kind);
  return template;
}

/** Validity of a code template in milliseconds. */
export function validityMs(template: SmsTemplate): number {
  return (template.validityMinutes ?? DEFAULT_VALIDITY_MINUTES) * 60_000;
}

/**
 * Checks an application's SMS settings once, at startup: template names unique, kinds known, code
 * templates contain `${code}` and only `code`/`minutes`, validity a positive number of minutes,
 * limits positive integers, quota a non-negative integer or 'unlimited'. Throws a `[svcbase]` error.
 */
export function assertSmsSettings(app: Application): void {
  const scope = `sms:${app.applicationId}`;
  const sms = app.settings.sms;
  const seen = new Set<string>();
  for (const t of sms.templates) {
    if (typeof t.name !== 'string' || t.name.length === 0) throw configError(scope, 'every SMS template needs a name');
    if (seen.has(t.name)) throw configError(scope, `duplicate SMS template '${t.name}'`);
    seen.add(t.name);
    if (t.kind !== 'code' && t.kind !== 'notification') throw configError(scope, `template '${t.name}' has unknown kind '${String(t.kind)}'`);
    if (typeof t.text !== 'string') throw configError(scope, `template '${t.name}' needs a text`);
    if (t.validityMinutes !== undefined && !(t.validityMinutes > 0)) throw configError(scope, `template '${t.name}' validityMinutes must be positive`);
    if (t.kind === 'code') {
      const vars = templateVariables(t.text);
      if (!vars.includes('code')) throw configError(scope, `code template '${t.name}' must contain \${code}`);
      const extra = vars.filter((v) => !CODE_TEMPLATE_VARIABLES.includes(v));
      if (extra.length > 0) throw configError(scope, `code template '${t.name}' may only use \${code} and \${minutes}, not ${extra.join(', ')}`);
    }
  }
  for (const [name, value] of Object.entries(sms.limits)) {
    if (!Number.isSafeInteger(value) || value < 1) throw configError(scope, `sms.limits.${name} must be a positive integer`);
  }
  if (sms.quota !== 'unlimited' && (!Number.isSafeInteger(sms.quota) || sms.quota < 0)) {
    throw configError(scope, "sms.quota must be a non-negative integer or 'unlimited'");
  }
  if (!Number.isSafeInteger(sms.maxCodeAttempts) || sms.maxCodeAttempts < 1) throw configError(scope, 'sms.maxCodeAttempts must be a positive integer');
}
