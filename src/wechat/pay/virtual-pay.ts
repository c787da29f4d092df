import { createHmac } from 'node:crypto';
import type { Application } from '../../app/application.js';
import type { Caller } from '../../app/caller.js';
import type { Clock } from '../../core/clock.js';
import { svcError } from '../../core/errors.js';
import { type Random, randomHex } from '../../core/random.js';
import { type StoredRecord, dateValue } from '../../core/values.js';
import type { Json, JsonObject } from '../../core/wire-values.js';
import type { StorageAdapter } from '../../storage/port.js';
import { findPlan, whereEquals } from '../../query/plan-builders.js';
import type { PlatformClient } from '../platform-client.js';
import { type SessionKeyLedger, proveSessionKey } from '../session-keys.js';
import { tableSetup } from '../table-setup.js';
import type { PlatformAccount, VirtualPaySettings, WechatSettings } from '../wechat-settings.js';

/** Virtual-payment orders created through `/1/wxvp/createOrder`: master key only. */
export const VIRTUAL_ORDER_CLASS = '_VirtualOrder';

const MODES = new Set(['short_series_goods', 'short_series_coin']);
/** Order ids the platform takes: 8-32 letters, digits, `_`, `-`, `|`, `*`, `@`. */
const ORDER_ID = /^[A-Za-z0-9_|*@-]{8,32}$/;

export interface VirtualPayDeps {
  readonly settings: (app: Application) => WechatSettings;
  readonly platform: PlatformClient;
  readonly sessionKeys: SessionKeyLedger;
  readonly storage: StorageAdapter;
  readonly clock: Clock;
  readonly random: Random;
}

/**
 * WeChat virtual payment for mini-programs (the SDK's `Pay.wxvp*`): `createOrder` signs what
 * `wx.requestVirtualPayment` needs and keeps the order in `_VirtualOrder`; balance, order queries,
 * token payments and their cancellation go to the platform's `/xpay/*` API with `pay_sig`
 * (HMAC-SHA256 with the environment's AppKey over `<uri>&<body>`) and, where the platform wants the
 * user's consent, `signature` (HMAC-SHA256 with the user's session key over the body). The session
 * key the client sends must be the one the platform issued for the openid (208 otherwise).
 */
export interface VirtualPayService {
  createOrder(caller: Caller, input: JsonObject): Promise<JsonObject>;
  queryUserBalance(caller: Caller, input: JsonObject): Promise<JsonObject>;
  queryOrder(caller: Caller, input: JsonObject): Promise<JsonObject>;
  currencyPay(caller: Caller, input: JsonObject): Promise<JsonObject>;
  cancelCurrencyPay(caller: Caller, input: JsonObject): Promise<JsonObject>;
  /** A delivery or coin-payment event of the platform's message push (already signature-checked). */
  paid(app: Application, event: JsonObject): Promise<void>;
}

const hmac = (key: string, text: string) => createHmac('sha256', key).update(text, 'utf8').digest('hex');

/** The query signatures of an `/xpay/*` call: `pay_sig`, and the user's `signature` when `sessionKey` is given. */
const xpaySigner = (path: string, appKey: string, sessionKey?: string) => (body: string) => ({
  pay_sig: hmac(appKey, `${path}&${body}`),
  ...(sessionKey === undefined ? {} : { signature: hmac(sessionKey, body) }),
});

function text(input: JsonObject, name: string, max = 128): string {
  const value = input[name];
  if (value === undefined || value === null || value === '') throw svcError('payParamMissing', name);
  if (typeof value !== 'string' || value.length > max) throw svcError('payRefused', `${name} must be a string of at most ${max} characters`);
  return value;
}

function positiveInt(input: JsonObject, name: string): number {
  const value = input[name];
  if (value === undefined || value === null || value === '') throw svcError('payParamMissing', name);
  if (!Number.isSafeInteger(value) || (value as number) < 1) throw svcError('payRefused', `${name} must be a positive integer`);
  return value as number;
}

function orderId(input: JsonObject, name: string): string {
  const value = text(input, name, 32);
  if (!ORDER_ID.test(value)) throw svcError('payRefused', `${name} must be 8-32 letters, digits or _-|*@`);
  return value;
}

export function createVirtualPay(deps: VirtualPayDeps): VirtualPayService {
  const setup = tableSetup(
    deps.storage,
    VIRTUAL_ORDER_CLASS,
    {
      order_id: { type: 'String' },
      openid: { type: 'String' },
      env: { type: 'Number' },
      mode: { type: 'String' },
      goods_price: { type: 'Number' },
      buy_quantity: { type: 'Number' },
      product_id: { type: 'String' },
      name: { type: 'String' },
      attach: { type: 'String' },
      status: { type: 'String' },
      wx_order_id: { type: 'String' },
      userId: { type: 'String' },
    },
    'order_id',
  );

  /** The application's accounts and the AppKey of the requested environment (0 live, 1 sandbox). */
  const context = (app: Application, input: JsonObject): { account: PlatformAccount; vp: VirtualPaySettings; env: 0 | 1; appKey: string; ttl: number } => {
    const settings = deps.settings(app);
    if (!settings.miniProgram || !settings.virtualPay) throw svcError('platformNotConfigured', 'virtualPay');
    const env = input.env ?? 0;
    if (env !== 0 && env !== 1) throw svcError('payRefused', 'env is 0 (live) or 1 (sandbox)');
    const appKey = env === 0 ? settings.virtualPay.appKey : settings.virtualPay.sandboxAppKey;
    if (!appKey) throw svcError('platformNotConfigured', 'virtualPay.sandboxAppKey');
    return { account: settings.miniProgram, vp: settings.virtualPay, env, appKey, ttl: settings.sessionKeyTtlSeconds };
  };

  /** The openid and its proven session key (`sk`, or `session_key` as wxvpCreateOrder's options name it). */
  const user = async (app: Application, input: JsonObject, ctx: { account: PlatformAccount; ttl: number }) => {
    const openid = text(input, 'openid');
    const sk = input.sk ?? input.session_key;
    if (typeof sk !== 'string' || sk === '' || sk.length > 256) throw svcError('payParamMissing', 'sk');
    await proveSessionKey(deps, app, ctx.account, ctx.ttl, openid, sk);
    return { openid, sk };
  };

  const userIp = (caller: Caller) => caller.address ?? '127.0.0.1';

  return {
    async createOrder(caller, input) {
      const ctx = context(caller.app, input);
      const { openid, sk } = await user(caller.app, input, ctx);
      const mode = input.mode;
      if (mode === undefined || mode === null || mode === '') throw svcError('payParamMissing', 'mode');
      if (typeof mode !== 'string' || !MODES.has(mode)) throw svcError('payRefused', 'mode is short_series_goods or short_series_coin');
      const goodsPrice = positiveInt(input, 'goods_price');
      const buyQuantity = input.buy_quantity === undefined ? 1 : positiveInt(input, 'buy_quantity');
      const productId = mode === 'short_series_goods' ? text(input, 'product_id', 64) : undefined;
      const attach = input.attach === undefined ? '' : text(input, 'attach', 128);
      const currencyType = input.currency_type === undefined ? 'CNY' : text(input, 'currency_type', 8);
      const name = input.name === undefined ? '' : text(input, 'name', 128);
      const outTradeNo = `vp${deps.clock.now()}${randomHex(deps.random, 6)}`;
      const signData = JSON.stringify({
        offerId: ctx.vp.offerId,
        buyQuantity,
        env: ctx.env,
        currencyType,
        ...(productId ? { productId, goodsPrice } : {}),
        outTradeNo,
        attach,
      });
      const ref = await setup(caller.app);
      const now = dateValue(deps.clock.now());
      const session = caller.sessionToken ? await caller.user() : null;
      const record = {
        objectId: randomHex(deps.random, 8),
        createdAt: now,
        updatedAt: now,
        order_id: outTradeNo,
        openid,
        env: ctx.env,
        mode,
        goods_price: goodsPrice,
        buy_quantity: buyQuantity,
        ...(productId ? { product_id: productId } : {}),
        ...(name ? { name } : {}),
        ...(attach ? { attach } : {}),
        ...(session ? { userId: session.objectId } : {}),
        status: 'CREATED',
      } as StoredRecord;
      await deps.storage.insert(ref, record);
      return {
        order_id: outTradeNo,
        mode,
        signData,
        paySig: hmac(ctx.appKey, `requestVirtualPayment&${signData}`),
        signature: hmac(sk, signData),
      };
    },

    async queryUserBalance(caller, input) {
      const ctx = context(caller.app, input);
      const { openid, sk } = await user(caller.app, input, ctx);
      const path = '/xpay/query_user_balance';
      return deps.platform.virtualPay(ctx.account, path, { openid, env: ctx.env, user_ip: userIp(caller) }, xpaySigner(path, ctx.appKey, sk));
    },

    async queryOrder(caller, input) {
      const ctx = context(caller.app, input);
      const openid = text(input, 'openid');
      const byId = input.order_id === undefined ? undefined : orderId(input, 'order_id');
      const byWx = input.wx_order_id === undefined ? undefined : text(input, 'wx_order_id', 64);
      if (!byId && !byWx) throw svcError('payParamMissing', 'order_id or wx_order_id');
      const path = '/xpay/query_order';
      const body: { [key: string]: Json } = { openid, env: ctx.env, ...(byId ? { order_id: byId } : {}), ...(byWx ? { wx_order_id: byWx } : {}) };
      return deps.platform.virtualPay(ctx.account, path, body, xpaySigner(path, ctx.appKey));
    },

    async currencyPay(caller, input) {
      const ctx = context(caller.app, input);
      const { openid, sk } = await user(caller.app, input, ctx);
      const path = '/xpay/currency_pay';
      const body: { [key: string]: Json } = {
        openid,
        env: ctx.env,
        user_ip: userIp(caller),
        amount: positiveInt(input, 'amount'),
        order_id: orderId(input, 'order_id'),
        payitem: input.payitem === undefined ? '' : text(input, 'payitem', 512),
        remark: input.remark === undefined ? '' : text(input, 'remark', 256),
      };
      return deps.platform.virtualPay(ctx.account, path, body, xpaySigner(path, ctx.appKey, sk));
    },

    async cancelCurrencyPay(caller, input) {
      const ctx = context(caller.app, input);
      const { openid, sk } = await user(caller.app, input, ctx);
      const path = '/xpay/cancel_currency_pay';
      const body: { [key: string]: Json } = {
        openid,
        env: ctx.env,
        user_ip: userIp(caller),
        pay_order_id: orderId(input, 'pay_order_id'),
        order_id: orderId(input, 'order_id'),
        amount: positiveInt(input, 'amount'),
      };
      return deps.platform.virtualPay(ctx.account, path, body, xpaySigner(path, ctx.appKey, sk));
    },

    async paid(app, event) {
      const outTradeNo = event.OutTradeNo;
      if (typeof outTradeNo !== 'string') return;
      const ref = await setup(app);
      const found = (await deps.storage.find(ref, findPlan(whereEquals('order_id', outTradeNo), 1)))[0];
      if (!found || found.status === 'PAID') return;
      const payInfo = event.WeChatPayInfo;
      const wxOrderId = typeof payInfo === 'object' && payInfo !== null && !Array.isArray(payInfo) && typeof payInfo.TransactionId === 'string' ? payInfo.TransactionId : '';
      await deps.storage.update(ref, found.objectId, [
        { kind: 'set', column: 'status', path: [], value: 'PAID' },
        ...(wxOrderId ? [{ kind: 'set' as const, column: 'wx_order_id', path: [], value: wxOrderId }] : []),
      ], dateValue(deps.clock.now()));
    },
  };
}
