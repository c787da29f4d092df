import type { Application } from '../app/application.js';
import { svcError } from '../core/errors.js';
import type { JsonObject } from '../core/wire-values.js';
import { parseJsonBody } from '../http/body.js';
import type { RouteContext, RouteDef } from '../features/routes.js';

const CALLBACK_MAX_BYTES = 64 * 1024;
import type { PayService } from './pay/pay-service.js';
import type { VirtualPayService } from './pay/virtual-pay.js';
import { CHECK_TEXT_MAX_BYTES, type WechatService } from './wechat-service.js';

type Handler = RouteDef['handler'];
const bodyOf = (rc: RouteContext): JsonObject => rc.body ?? {};

function route(method: RouteDef['method'], path: string, handler: Handler, extra: Partial<RouteDef> = {}): RouteDef {
  return { method, path, auth: 'app', body: method === 'GET' ? 'none' : 'json', handler, ...extra };
}

/** The application a platform callback names in its path; 11207 for an unknown one. */
function appOf(applications: ReadonlyMap<string, Application>, id: string | undefined): Application {
  const app = id ? applications.get(id) : undefined;
  if (!app) throw svcError('platformCallbackRefused', 'unknown application');
  return app;
}

/** A platform callback's JSON body, with the request pipeline's own checks (forbidden keys, depth), whatever content type the platform sends. */
const callbackBody = (rc: RouteContext): JsonObject => parseJsonBody(rc.rawBody, 'application/json', { maxBytes: CALLBACK_MAX_BYTES, maxDepth: 32 });

/**
 * The mini-program routes as the SDK sends them (sdk-wire §5.1 rows 17-20, 37-51) plus the two
 * callbacks the platform calls: the message push of async media verdicts and the payment
 * notification. `getAccessToken` needs the master key: the token acts as the whole mini-program on
 * the platform, so it must not reach a client.
 */
export function wechatRoutes(wechat: WechatService, pay: PayService, virtualPay: VirtualPayService, applications: ReadonlyMap<string, Application>): RouteDef[] {
  return [
    route('POST', '/1/wechatAppv1/:code', async (rc) => ({ body: await wechat.login(rc.caller, rc.params.code ?? '') }), { body: 'optional-json' }),
    route('POST', '/1/wechatApp/checkSessionKey', async (rc) => ({ body: await wechat.checkSessionKey(rc.caller, bodyOf(rc)) })),
    route('POST', '/1/wechatApp/decryptionv1', async (rc) => ({ body: await wechat.decrypt(rc.caller, bodyOf(rc)) })),
    route('POST', '/1/wechatApp/getPhoneNumber', async (rc) => ({ body: await wechat.phoneNumber(rc.caller, bodyOf(rc)) })),
    route('GET', '/1/wechatApp/getAccessToken', async (rc) => ({ body: await wechat.accessToken(rc.caller) }), { auth: 'master' }),
    route('POST', '/1/wechatApp/checkMsg', async (rc) => ({ body: await wechat.checkText(rc.caller, bodyOf(rc)) }), { bodyLimit: CHECK_TEXT_MAX_BYTES * 2 + 4096 }),
    route('POST', '/1/wechatApp/asyncCheckWechatMedia', async (rc) => ({ body: await wechat.checkMediaAsync(rc.caller, bodyOf(rc)) })),
    route('POST', '/1/wechatApp/SendWeAppMessage', async (rc) => ({ body: await wechat.sendSubscribeMessage(rc.caller, bodyOf(rc)) })),
    route('POST', '/1/wechatApp/notifyMsg', async (rc) => ({ body: await wechat.notifyOwner(rc.caller, bodyOf(rc)) })),
    route(
      'GET',
      '/1/wechatApp/callback/:applicationId',
      async (rc) => ({ body: await wechat.verifyUrl(appOf(applications, rc.params.applicationId), rc.query), raw: true, headers: { 'content-type': 'text/plain; charset=utf-8' } }),
      { auth: 'none' },
    ),
    route(
      'POST',
      '/1/wechatApp/callback/:applicationId',
      async (rc) => {
        const reply = await wechat.callback(appOf(applications, rc.params.applicationId), rc.query, callbackBody(rc));
        return typeof reply === 'string' ? { body: reply, raw: true, headers: { 'content-type': 'text/plain; charset=utf-8' } } : { body: reply };
      },
      { auth: 'none', body: 'raw', bodyLimit: CALLBACK_MAX_BYTES },
    ),
    route('POST', '/1/pay', async (rc) => ({ body: await pay.pay(rc.caller, bodyOf(rc)) })),
    route('POST', '/1/pay/refund', async (rc) => ({ body: await pay.refund(rc.caller, bodyOf(rc)) })),
    route('POST', '/1/wxvp/createOrder', async (rc) => ({ body: await virtualPay.createOrder(rc.caller, bodyOf(rc)) })),
    route('POST', '/1/wxvp/queryUserBalance', async (rc) => ({ body: await virtualPay.queryUserBalance(rc.caller, bodyOf(rc)) })),
    route('POST', '/1/wxvp/queryOrder', async (rc) => ({ body: await virtualPay.queryOrder(rc.caller, bodyOf(rc)) })),
    route('POST', '/1/wxvp/currencyPay', async (rc) => ({ body: await virtualPay.currencyPay(rc.caller, bodyOf(rc)) })),
    route('POST', '/1/wxvp/cancelCurrencyPay', async (rc) => ({ body: await virtualPay.cancelCurrencyPay(rc.caller, bodyOf(rc)) })),
    // The SDK's wxvpCancelCurrencyPay (2.7.3) has no route constant: it posts to the host's root and
    // signs `undefined + timestamp`, which JavaScript makes `NaN`. `POST /` is served by its body: a
    // `pay_order_id` makes it that call.
    route(
      'POST',
      '/',
      async (rc) => {
        const body = bodyOf(rc);
        if (!Object.hasOwn(body, 'pay_order_id')) throw svcError('routeNotFound', 'POST', '/');
        return { body: await virtualPay.cancelCurrencyPay(rc.caller, body) };
      },
      { body: 'optional-json', signedHeads: ['NaN'], summary: "The SDK's wxvpCancelCurrencyPay (a body with pay_order_id), which posts to the root" },
    ),
    route('GET', '/1/pay/:outTradeNo', async (rc) => ({ body: await pay.query(rc.caller, rc.params.outTradeNo ?? '') })),
    route(
      'POST',
      '/1/pay/notify/:applicationId',
      async (rc) => {
        const app = appOf(applications, rc.params.applicationId);
        const reply = await pay.notify(app, rc.headers, rc.rawBody ? Buffer.from(rc.rawBody).toString('utf8') : '');
        return { status: reply.status, body: reply.body, raw: true, headers: { 'content-type': reply.contentType } };
      },
      { auth: 'none', body: 'raw', bodyLimit: 64 * 1024 },
    ),
  ];
}
