/** One order placed with the platform (JSAPI). */
export interface OrderRequest {
  readonly appId: string;
  readonly outTradeNo: string;
  /** Fen. */
  readonly totalFee: number;
  readonly description: string;
  readonly detail: string;
  readonly openid: string;
  readonly clientIp: string;
}

/** What `wx.requestPayment` takes (the SDK reads them as `timestamp`, `noncestr`, `package`, `sign`). */
export interface PaymentFields {
  readonly timeStamp: string;
  readonly nonceStr: string;
  readonly package: string;
  readonly signType: string;
  readonly paySign: string;
}

/** A payment notification the gateway verified (signature, and decrypted where the version encrypts). */
export type PaymentNotice =
  | { readonly kind: 'paid'; readonly appId: string; readonly mchId: string; readonly outTradeNo: string; readonly totalFee: number; readonly transactionId: string }
  /** Verified, but not a successful payment (nothing to apply). */
  | { readonly kind: 'other' }
  | { readonly kind: 'refused'; readonly reason: string };

/** The HTTP answer the platform expects to a notification. */
export interface NoticeReply {
  readonly status: number;
  readonly body: string;
  readonly contentType: string;
}

export interface RefundRequest {
  readonly appId: string;
  readonly outTradeNo: string;
  readonly outRefundNo: string;
  readonly totalFee: number;
  readonly refundFee: number;
  readonly reason: string;
}

/**
 * One WeChat Pay API version, as the pay service uses it: v2 (XML, MD5/HMAC-SHA256 with the API key)
 * or v3 (JSON, RSA-SHA256, AES-256-GCM notifications). Both throw coded errors: 10003 for a
 * business refusal, 11206 for an unreachable platform or a reply with a bad signature.
 */
export interface PayGateway {
  /** Places a JSAPI order: its prepay_id. */
  order(request: OrderRequest): Promise<string>;
  paymentFields(appId: string, prepayId: string): PaymentFields;
  readNotice(headers: Readonly<Record<string, string | undefined>>, body: string): PaymentNotice;
  reply(accepted: boolean, message: string): NoticeReply;
  /** The platform's refund id. */
  refund(request: RefundRequest): Promise<string>;
}
