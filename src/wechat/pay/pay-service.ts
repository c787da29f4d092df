import type { Access } from '../../access/access-control.js';
import { ownsRow } from '../../access/row-owner.js';
import type { Application } from '../../app/application.js';
import type { Caller } from '../../app/caller.js';
import type { Clock } from '../../core/clock.js';
import { svcError } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import { type Random, randomHex } from '../../core/random.js';
import type { JsonObject } from '../../core/wire-values.js';
import { KV_NO_EXPIRY, type KvStore } from '../../kv/port.js';
import type { PaySettings, WechatSettings } from '../wechat-settings.js';
import type { Order, OrderStore } from './orders.js';
import type { NoticeReply, PayGateway } from './pay-gateway.js';
import type { PayV2Transport } from './pay-v2-client.js';
import { payV2Gateway } from './pay-v2-gateway.js';
import { payV3Gateway } from './pay-v3-gateway.js';

/** Largest order: 1 000 000 yuan (the platform's own cap is lower per merchant). */
const MAX_FEN = 100_000_000;

export interface PayServiceDeps {
  readonly settings: (app: Application) => WechatSettings;
  readonly orders: OrderStore;
  /** Who the caller is for access checks (the records feature's `access.accessOf`). */
  readonly accessOf: (caller: Caller) => Promise<Access>;
  readonly transport: PayV2Transport;
  readonly kv: KvStore;
  readonly clock: Clock;
  readonly random: Random;
  readonly logger: Logger;
  /** fetch for Pay v3 (default: the global one). */
  readonly fetch?: typeof fetch;
}

/**
 * WeChat Pay (v2, or v3 with `pay.version: 'v3'`) for mini-programs: orders (`POST /1/pay`), the platform's payment notification,
 * order queries and refunds. Amounts on the SDK's side are yuan (`order_price`, `refund_fee`), on
 * the platform's and in `_Order` fen.
 */
export interface PayService {
  /** A JSAPI order: `{appId, timestamp, noncestr, package, signType, sign, out_trade_no}` for `wx.requestPayment`. */
  pay(caller: Caller, input: JsonObject): Promise<JsonObject>;
  /** The platform's payment notification (v2 XML, v3 signed JSON): the HTTP answer the platform expects. */
  notify(app: Application, headers: Readonly<Record<string, string | undefined>>, body: string): Promise<NoticeReply>;
  /** The order's state, for its buyer or the master key; 10002 for anyone else, as for an unknown order. */
  query(caller: Caller, outTradeNo: string): Promise<JsonObject>;
  /** Refunds part or all of a paid order: the master key, or its buyer with `pay.clientRefund`; 10002 for anyone else. */
  refund(caller: Caller, input: JsonObject): Promise<JsonObject>;
}

/** Yuan with at most two decimals → fen; 10001/10003 otherwise. */
export function fenOf(value: unknown, name: string): number {
  if (value === undefined || value === null || value === '') throw svcError('payParamMissing', name);
  const yuan = typeof value === 'string' && /^\d{1,9}(\.\d{1,2})?$/.test(value) ? Number(value) : value;
  if (typeof yuan !== 'number' || !Number.isFinite(yuan)) throw svcError('payRefused', `${name} must be a number of yuan`);
  const fen = Math.round(yuan * 100);
  if (Math.abs(fen - yuan * 100) > 1e-6) throw svcError('payRefused', `${name} has more than two decimals`);
  if (fen < 1 || fen > MAX_FEN) throw svcError('payRefused', `${name} must be between 0.01 and ${MAX_FEN / 100}`);
  return fen;
}

function text(input: JsonObject, name: string, max: number): string {
  const value = input[name];
  if (value === undefined || value === null || value === '') throw svcError('payParamMissing', name);
  if (typeof value !== 'string') throw svcError('payRefused', `${name} must be a string`);
  if (Buffer.byteLength(value) > max) throw svcError('payRefused', `${name} is longer than ${max} bytes`);
  return value;
}

export function createPayService(deps: PayServiceDeps): PayService {
  // One gateway per application's settings object (settings are resolved once, at start-up).
  const gateways = new WeakMap<PaySettings, PayGateway>();
  const payOf = (app: Application): { pay: PaySettings; appId: string; gateway: PayGateway } | null => {
    const settings = deps.settings(app);
    if (!settings.pay || !settings.miniProgram) return null;
    let gateway = gateways.get(settings.pay);
    if (!gateway) {
      gateway = settings.pay.version === 'v3' ? payV3Gateway(settings.pay, deps) : payV2Gateway(settings.pay, deps);
      gateways.set(settings.pay, gateway);
    }
    return { pay: settings.pay, appId: settings.miniProgram.appId, gateway };
  };
  const requirePay = (app: Application) => {
    const found = payOf(app);
    if (!found) throw svcError('platformNotConfigured', 'pay');
    return found;
  };

  // The caller's own order: the buyer's session or the master key (an order placed anonymously is the
  // master key's alone). Anyone else gets the unknown-order answer, so an order number reveals nothing.
  const findOwn = async (caller: Caller, outTradeNo: unknown): Promise<Order> => {
    if (typeof outTradeNo !== 'string' || !/^[A-Za-z0-9_*|-]{1,32}$/.test(outTradeNo)) throw svcError('orderNotFound');
    const order = await deps.orders.find(caller.app, outTradeNo);
    if (!order || !ownsRow(await deps.accessOf(caller), order.userId)) throw svcError('orderNotFound');
    return order;
  };

  return {
    async pay(caller, input) {
      const { appId, gateway } = requirePay(caller.app);
      const totalFee = fenOf(input.order_price, 'order_price');
      const productName = text(input, 'product_name', 127);
      const body = typeof input.body === 'string' ? input.body.slice(0, 512) : '';
      const openid = text(input, 'open_id', 128);
      if (input.pay_type !== undefined && input.pay_type !== 4) throw svcError('payRefused', 'pay_type 4 (mini-program) is the one supported');
      const outTradeNo = `${deps.clock.now()}${randomHex(deps.random, 9)}`.slice(0, 32);
      const clientIp = caller.address && /^[0-9.]+$/.test(caller.address) ? caller.address : '127.0.0.1';
      const prepayId = await gateway.order({ appId, outTradeNo, totalFee, description: productName, detail: body, openid, clientIp });
      const session = caller.sessionToken ? await caller.user() : null;
      await deps.orders.create(caller.app, { out_trade_no: outTradeNo, total_fee: totalFee, openid, product_name: productName, body, prepay_id: prepayId, userId: session?.objectId ?? null });
      const payment = gateway.paymentFields(appId, prepayId);
      return {
        out_trade_no: outTradeNo,
        appId,
        timestamp: payment.timeStamp,
        noncestr: payment.nonceStr,
        package: payment.package,
        signType: payment.signType,
        sign: payment.paySign,
      };
    },

    async notify(app, headers, text) {
      const found = payOf(app);
      if (!found) return { status: 400, body: 'pay is not configured', contentType: 'text/plain; charset=utf-8' };
      const { pay, appId, gateway } = found;
      const refuse = (reason: string) => {
        deps.logger.warn('wechat pay: a notification was refused', { app: app.applicationId, reason });
        return gateway.reply(false, reason);
      };
      const notice = gateway.readNotice(headers, text);
      if (notice.kind === 'refused') return refuse(notice.reason);
      if (notice.kind === 'other') return gateway.reply(true, 'OK');
      if (notice.appId !== appId || notice.mchId !== pay.mchId) return refuse('not this merchant');
      const order = await deps.orders.find(app, notice.outTradeNo);
      if (!order) return refuse('unknown out_trade_no');
      if (notice.totalFee !== order.total_fee) return refuse('amount mismatch');
      // One claim per order across instances: a replayed or doubled notification is applied once.
      const now = deps.clock.now();
      const claim = `wechat:paid:${app.applicationId}:${order.out_trade_no}`;
      if (!(await deps.kv.putIfAbsent(claim, notice.transactionId, KV_NO_EXPIRY, now))) return gateway.reply(true, 'OK');
      try {
        await deps.orders.markPaid(app, order, notice.transactionId, now);
      } catch (error) {
        await deps.kv.delete(claim);
        throw error;
      }
      return gateway.reply(true, 'OK');
    },

    async query(caller, outTradeNo) {
      const order = await findOwn(caller, outTradeNo);
      return {
        out_trade_no: order.out_trade_no,
        trade_state: order.status,
        total_fee: order.total_fee,
        refunded_fee: order.refunded_fee,
        ...(order.transaction_id ? { transaction_id: order.transaction_id } : {}),
      };
    },

    async refund(caller, input) {
      const { pay, appId, gateway } = requirePay(caller.app);
      if (!caller.isMaster && !pay.clientRefund) throw svcError('masterKeyRequired');
      const order = await findOwn(caller, input.order_no);
      const fee = fenOf(input.refund_fee, 'refund_fee');
      const desc = text(input, 'desc', 80);
      const outRefundNo = input.out_refund_no === undefined ? `${order.out_trade_no.slice(0, 24)}R${randomHex(deps.random, 3)}` : text(input, 'out_refund_no', 64);
      if (!/^[A-Za-z0-9_*|@-]{1,64}$/.test(outRefundNo)) throw svcError('payRefused', 'out_refund_no has characters the platform refuses');
      if (order.status !== 'SUCCESS') throw svcError('payRefused', 'the order is not paid');
      const now = deps.clock.now();
      // A refund number is used once: a replay answers the first result and refunds nothing more.
      const done = `wechat:refund:${caller.app.applicationId}:${outRefundNo}`;
      if (!(await deps.kv.putIfAbsent(done, 'pending', KV_NO_EXPIRY, now))) {
        const previous = await deps.kv.get(done, now);
        if (previous && previous !== 'pending') return JSON.parse(previous) as JsonObject;
        throw svcError('payRefused', `refund ${outRefundNo} is in progress`);
      }
      // Reserve the amount on the order first (an atomic increment), so concurrent refunds cannot
      // pass the paid total together; undone when the platform refuses.
      const total = await deps.orders.addRefunded(caller.app, order, fee);
      if (total > order.total_fee) {
        await deps.orders.addRefunded(caller.app, order, -fee);
        await deps.kv.delete(done);
        throw svcError('payRefused', `refund_fee exceeds what is left of the order (${(order.total_fee - (total - fee)) / 100})`);
      }
      try {
        const refundId = await gateway.refund({ appId, outTradeNo: order.out_trade_no, outRefundNo, totalFee: order.total_fee, refundFee: fee, reason: desc });
        const result: JsonObject = { msg: 'ok', out_refund_no: outRefundNo, refund_id: refundId, refund_fee: fee, refunded_fee: total };
        await deps.kv.put(done, JSON.stringify(result), KV_NO_EXPIRY);
        return result;
      } catch (error) {
        await deps.orders.addRefunded(caller.app, order, -fee);
        await deps.kv.delete(done);
        throw error;
      }
    },
  };
}
