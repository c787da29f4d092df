import type { Application } from '../../app/application.js';
import type { Caller } from '../../app/caller.js';
import type { Clock } from '../../core/clock.js';
import { svcError } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import { type Random, randomHex, randomString } from '../../core/random.js';
import type { JsonObject } from '../../core/wire-values.js';
import { KV_NO_EXPIRY, type KvStore } from '../../kv/port.js';
import type { PaySettings, WechatSettings } from '../wechat-settings.js';
import type { Order, OrderStore } from './orders.js';
import { type PayV2Transport, callPayV2 } from './pay-v2-client.js';
import { type PayFields, parsePayXml, payV2Sign, payV2SignatureValid, toPayXml } from './pay-v2-xml.js';

/** Largest order: 1 000 000 yuan (the platform's own cap is lower per merchant). */
const MAX_FEN = 100_000_000;

export interface PayServiceDeps {
  readonly settings: (app: Application) => WechatSettings;
  readonly orders: OrderStore;
  readonly transport: PayV2Transport;
  readonly kv: KvStore;
  readonly clock: Clock;
  readonly random: Random;
  readonly logger: Logger;
}

/**
 * WeChat Pay v2 for mini-programs: orders (`POST /1/pay`), the platform's payment notification,
 * order queries and refunds. Amounts on the SDK's side are yuan (`order_price`, `refund_fee`), on
 * the platform's and in `_Order` fen.
 */
export interface PayService {
  /** A JSAPI order: `{appId, timestamp, noncestr, package, signType, sign, out_trade_no}` for `wx.requestPayment`. */
  pay(caller: Caller, input: JsonObject): Promise<JsonObject>;
  /** The platform's notification (XML): the reply XML, and whether it was accepted. */
  notify(app: Application, xml: string): Promise<{ accepted: boolean; reply: string }>;
  query(caller: Caller, outTradeNo: string): Promise<JsonObject>;
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

const XML_OK = toPayXml({ return_code: 'SUCCESS', return_msg: 'OK' });
const xmlFail = (message: string) => toPayXml({ return_code: 'FAIL', return_msg: message });

export function createPayService(deps: PayServiceDeps): PayService {
  const payOf = (app: Application): { pay: PaySettings; appId: string } => {
    const settings = deps.settings(app);
    if (!settings.pay || !settings.miniProgram) throw svcError('platformNotConfigured', 'pay');
    return { pay: settings.pay, appId: settings.miniProgram.appId };
  };
  const nonce = () => randomString(deps.random, 32);
  const signer = (pay: PaySettings) => (fields: PayFields) => payV2Sign(fields, pay.key, pay.signType);

  const findOwn = async (app: Application, outTradeNo: unknown): Promise<Order> => {
    if (typeof outTradeNo !== 'string' || !/^[A-Za-z0-9_*|-]{1,32}$/.test(outTradeNo)) throw svcError('orderNotFound');
    const order = await deps.orders.find(app, outTradeNo);
    if (!order) throw svcError('orderNotFound');
    return order;
  };

  return {
    async pay(caller, input) {
      const { pay, appId } = payOf(caller.app);
      const totalFee = fenOf(input.order_price, 'order_price');
      const productName = text(input, 'product_name', 127);
      const body = typeof input.body === 'string' ? input.body.slice(0, 512) : '';
      const openid = text(input, 'open_id', 128);
      if (input.pay_type !== undefined && input.pay_type !== 4) throw svcError('payRefused', 'pay_type 4 (mini-program) is the one supported');
      const outTradeNo = `${deps.clock.now()}${randomHex(deps.random, 9)}`.slice(0, 32);
      const fields: PayFields = {
        appid: appId,
        mch_id: pay.mchId,
        nonce_str: nonce(),
        sign_type: pay.signType,
        body: productName,
        ...(body ? { detail: body } : {}),
        out_trade_no: outTradeNo,
        total_fee: String(totalFee),
        spbill_create_ip: caller.address && /^[0-9.]+$/.test(caller.address) ? caller.address : '127.0.0.1',
        notify_url: pay.notifyUrl,
        trade_type: 'JSAPI',
        openid,
      };
      const reply = await callPayV2(deps.transport, pay, '/pay/unifiedorder', fields, signer(pay));
      const prepayId = reply.prepay_id;
      if (!prepayId) throw svcError('platformUnavailable', 'unifiedorder answered no prepay_id');
      const session = caller.sessionToken ? await caller.user() : null;
      await deps.orders.create(caller.app, { out_trade_no: outTradeNo, total_fee: totalFee, openid, product_name: productName, body, prepay_id: prepayId, userId: session?.objectId ?? null });
      const payment: PayFields = {
        appId,
        timeStamp: String(Math.floor(deps.clock.now() / 1000)),
        nonceStr: nonce(),
        package: `prepay_id=${prepayId}`,
        signType: pay.signType,
      };
      const paySign = payV2Sign(payment, pay.key, pay.signType);
      return {
        out_trade_no: outTradeNo,
        appId,
        timestamp: payment.timeStamp!,
        noncestr: payment.nonceStr!,
        package: payment.package!,
        signType: pay.signType,
        sign: paySign,
      };
    },

    async notify(app, xml) {
      const settings = deps.settings(app);
      if (!settings.pay || !settings.miniProgram) return { accepted: false, reply: xmlFail('pay is not configured') };
      const fields = parsePayXml(xml);
      if (!fields) return { accepted: false, reply: xmlFail('unreadable XML') };
      if (!payV2SignatureValid(fields, settings.pay.key, settings.pay.signType)) {
        deps.logger.warn('wechat pay: a notification with a bad signature was refused', { app: app.applicationId });
        return { accepted: false, reply: xmlFail('bad signature') };
      }
      if (fields.appid !== settings.miniProgram.appId || fields.mch_id !== settings.pay.mchId) return { accepted: false, reply: xmlFail('not this merchant') };
      if (fields.return_code !== 'SUCCESS' || fields.result_code !== 'SUCCESS') return { accepted: true, reply: XML_OK };
      const order = fields.out_trade_no ? await deps.orders.find(app, fields.out_trade_no) : null;
      if (!order) return { accepted: false, reply: xmlFail('unknown out_trade_no') };
      if (fields.total_fee !== String(order.total_fee)) {
        deps.logger.warn('wechat pay: a notification with a wrong amount was refused', { app: app.applicationId, out_trade_no: order.out_trade_no });
        return { accepted: false, reply: xmlFail('amount mismatch') };
      }
      // One claim per order across instances: a replayed or doubled notification is applied once.
      const now = deps.clock.now();
      const claim = `wechat:paid:${app.applicationId}:${order.out_trade_no}`;
      if (!(await deps.kv.putIfAbsent(claim, fields.transaction_id ?? '', KV_NO_EXPIRY, now))) return { accepted: true, reply: XML_OK };
      try {
        await deps.orders.markPaid(app, order, fields.transaction_id ?? '', now);
      } catch (error) {
        await deps.kv.delete(claim);
        throw error;
      }
      return { accepted: true, reply: XML_OK };
    },

    async query(caller, outTradeNo) {
      const order = await findOwn(caller.app, outTradeNo);
      return {
        out_trade_no: order.out_trade_no,
        trade_state: order.status,
        total_fee: order.total_fee,
        refunded_fee: order.refunded_fee,
        ...(order.transaction_id ? { transaction_id: order.transaction_id } : {}),
      };
    },

    async refund(caller, input) {
      const { pay, appId } = payOf(caller.app);
      if (!caller.isMaster && !pay.clientRefund) throw svcError('masterKeyRequired');
      const order = await findOwn(caller.app, input.order_no);
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
        const reply = await callPayV2(
          deps.transport,
          pay,
          '/secapi/pay/refund',
          {
            appid: appId,
            mch_id: pay.mchId,
            nonce_str: nonce(),
            sign_type: pay.signType,
            out_trade_no: order.out_trade_no,
            out_refund_no: outRefundNo,
            total_fee: String(order.total_fee),
            refund_fee: String(fee),
            refund_desc: desc,
          },
          signer(pay),
          { certificate: true },
        );
        const result: JsonObject = { msg: 'ok', out_refund_no: outRefundNo, refund_id: reply.refund_id ?? '', refund_fee: fee, refunded_fee: total };
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
