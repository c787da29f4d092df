import type { Random } from '../../core/random.js';
import { randomString } from '../../core/random.js';
import type { Clock } from '../../core/clock.js';
import { svcError } from '../../core/errors.js';
import type { PayV2Settings } from '../wechat-settings.js';
import type { PayGateway } from './pay-gateway.js';
import { type PayV2Transport, callPayV2 } from './pay-v2-client.js';
import { type PayFields, parsePayXml, payV2Sign, payV2SignatureValid, toPayXml } from './pay-v2-xml.js';

/** Pay v2: flat XML signed with the API key (`/pay/unifiedorder`, `/secapi/pay/refund`). */
export function payV2Gateway(settings: PayV2Settings, deps: { readonly transport: PayV2Transport; readonly clock: Clock; readonly random: Random }): PayGateway {
  const nonce = () => randomString(deps.random, 32);
  const sign = (fields: PayFields) => payV2Sign(fields, settings.key, settings.signType);
  return {
    async order(request) {
      const reply = await callPayV2(
        deps.transport,
        settings,
        '/pay/unifiedorder',
        {
          appid: request.appId,
          mch_id: settings.mchId,
          nonce_str: nonce(),
          sign_type: settings.signType,
          body: request.description,
          ...(request.detail ? { detail: request.detail } : {}),
          out_trade_no: request.outTradeNo,
          total_fee: String(request.totalFee),
          spbill_create_ip: request.clientIp,
          notify_url: settings.notifyUrl,
          trade_type: 'JSAPI',
          openid: request.openid,
        },
        sign,
      );
      if (!reply.prepay_id) throw svcError('platformUnavailable', 'unifiedorder answered no prepay_id');
      return reply.prepay_id;
    },
    paymentFields(appId, prepayId) {
      const fields = { appId, timeStamp: String(Math.floor(deps.clock.now() / 1000)), nonceStr: nonce(), package: `prepay_id=${prepayId}`, signType: settings.signType };
      return { ...fields, paySign: sign(fields) };
    },
    readNotice(_headers, body) {
      const fields = parsePayXml(body);
      if (!fields) return { kind: 'refused', reason: 'unreadable XML' };
      if (!payV2SignatureValid(fields, settings.key, settings.signType)) return { kind: 'refused', reason: 'bad signature' };
      if (fields.return_code !== 'SUCCESS' || fields.result_code !== 'SUCCESS') return { kind: 'other' };
      const totalFee = Number(fields.total_fee);
      if (!fields.out_trade_no || !Number.isSafeInteger(totalFee)) return { kind: 'refused', reason: 'incomplete notification' };
      return { kind: 'paid', appId: fields.appid ?? '', mchId: fields.mch_id ?? '', outTradeNo: fields.out_trade_no, totalFee, transactionId: fields.transaction_id ?? '' };
    },
    reply(accepted, message) {
      return {
        status: accepted ? 200 : 400,
        body: toPayXml(accepted ? { return_code: 'SUCCESS', return_msg: 'OK' } : { return_code: 'FAIL', return_msg: message }),
        contentType: 'text/xml; charset=utf-8',
      };
    },
    async refund(request) {
      const reply = await callPayV2(
        deps.transport,
        settings,
        '/secapi/pay/refund',
        {
          appid: request.appId,
          mch_id: settings.mchId,
          nonce_str: nonce(),
          sign_type: settings.signType,
          out_trade_no: request.outTradeNo,
          out_refund_no: request.outRefundNo,
          total_fee: String(request.totalFee),
          refund_fee: String(request.refundFee),
          refund_desc: request.reason,
        },
        sign,
        { certificate: true },
      );
      return reply.refund_id ?? '';
    },
  };
}
