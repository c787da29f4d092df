import type { Json } from '../core/wire-values.js';
import { svcError } from '../core/errors.js';
import type { RouteContext, RouteDef } from '../features/routes.js';
import type { SmsApi } from './sms-api.js';
import { OK_REPLY } from '../http/reply-schemas.js';

const SMS_ID = { 200: { type: 'object', required: ['smsId'], properties: { smsId: { type: 'integer', minimum: 1 } } } } as const;
const OK = { 200: OK_REPLY } as const;

const str = { type: 'string' } as const;

/** JSON Schemas of the request bodies (compiled by the router with ajv; handlers still guard types). */
export const SMS_SCHEMAS = {
  requestSmsCode: { type: 'object', required: ['mobilePhoneNumber'], properties: { mobilePhoneNumber: str, template: str, validate_token: str } },
  verifySmsCodeInPath: { type: 'object', required: ['mobilePhoneNumber'], properties: { mobilePhoneNumber: str } },
  verifySmsCode: { type: 'object', required: ['mobilePhoneNumber', 'smsCode'], properties: { mobilePhoneNumber: str, smsCode: str } },
  requestSms: {
    type: 'object',
    required: ['mobilePhoneNumber', 'template'],
    properties: { mobilePhoneNumber: str, template: str, content: { type: 'object' }, validate_token: str },
  },
} as const;

/**
 * The SMS routes: requestSmsCode, both verifySmsCode shapes, requestSms and querySms (PROTOCOL.md
 * decision 7). All authenticate with application keys; replies are `{smsId}`, `{msg:"ok"}` and
 * `{sms_state, verify_state}`.
 */
export function smsRoutes(api: SmsApi): RouteDef[] {
  return [
    {
      method: 'POST', path: '/1/requestSmsCode', auth: 'app', body: 'json', schema: SMS_SCHEMAS.requestSmsCode, responses: SMS_ID,
      async handler(ctx) {
        const template = optionalString(ctx, 'template');
        const validateToken = optionalString(ctx, 'validate_token');
        return { body: await api.requestCode(ctx.app, requiredString(ctx, 'mobilePhoneNumber'), { template, validateToken }) };
      },
    },
    {
      method: 'POST', path: '/1/verifySmsCode/:code', auth: 'app', body: 'json', schema: SMS_SCHEMAS.verifySmsCodeInPath, responses: OK,
      async handler(ctx) {
        await api.verifyCode(ctx.app, requiredString(ctx, 'mobilePhoneNumber'), ctx.params.code ?? '');
        return { body: { msg: 'ok' } };
      },
    },
    {
      method: 'POST', path: '/1/verifySmsCode', auth: 'app', body: 'json', schema: SMS_SCHEMAS.verifySmsCode, responses: OK,
      async handler(ctx) {
        await api.verifyCode(ctx.app, requiredString(ctx, 'mobilePhoneNumber'), requiredString(ctx, 'smsCode'));
        return { body: { msg: 'ok' } };
      },
    },
    {
      method: 'POST', path: '/1/requestSms', auth: 'app', body: 'json', schema: SMS_SCHEMAS.requestSms, responses: SMS_ID,
      async handler(ctx) {
        const content = ctx.body?.content ?? {};
        if (typeof content !== 'object' || content === null || Array.isArray(content)) throw svcError('typeMismatch', 'content', 'object', describe(content));
        const validateToken = optionalString(ctx, 'validate_token');
        const phone = requiredString(ctx, 'mobilePhoneNumber');
        return { body: await api.sendNotification(ctx.app, phone, requiredString(ctx, 'template'), content, { validateToken }) };
      },
    },
    {
      method: 'GET', path: '/1/querySms/:smsId', auth: 'app', body: 'none',
      responses: { 200: { type: 'object', required: ['sms_state', 'verify_state'], properties: { sms_state: { enum: ['SENDING', 'SUCCESS', 'FAIL'] }, verify_state: { type: 'boolean' } } } },
      async handler(ctx) {
        const raw = ctx.params.smsId ?? '';
        const status = /^[1-9]\d{0,14}$/.test(raw) ? await api.status(ctx.app, Number(raw)) : null;
        if (!status) throw svcError('smsIdNotFound', raw);
        return { body: { sms_state: status.state, verify_state: status.verified } };
      },
    },
    {
      method: 'GET', path: '/1/smsQuota', auth: 'master', body: 'none',
      responses: { 200: { type: 'object', required: ['used', 'remaining'], properties: { used: { type: 'integer' }, remaining: { anyOf: [{ type: 'integer', minimum: 0 }, { const: 'unlimited' }] } } } },
      summary: "The application's SMS quota: billed messages used and remaining (the admin console's SMS page)",
      async handler(ctx) {
        const usage = await api.quota(ctx.app);
        return { body: { used: usage.used, remaining: usage.remaining } };
      },
    },
  ];
}

function requiredString(ctx: RouteContext, name: string): string {
  const value = ctx.body?.[name];
  if (value === undefined || value === null || value === '') throw svcError('paramRequired', name);
  if (typeof value !== 'string') throw svcError('typeMismatch', name, 'string', describe(value));
  return value;
}

function optionalString(ctx: RouteContext, name: string): string | undefined {
  const value = ctx.body?.[name];
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw svcError('typeMismatch', name, 'string', describe(value));
  return value;
}

function describe(value: Json): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'array' : typeof value;
}

/** The same paths answering only `refuse`'s error, whatever the body (a service without an SMS transport). */
export function disabledRoutes(routes: readonly RouteDef[], refuse: () => never): RouteDef[] {
  return routes.map((route) => ({ method: route.method, path: route.path, auth: route.auth, body: 'none', handler: refuse }));
}
