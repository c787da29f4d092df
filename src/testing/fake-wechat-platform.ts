import { createCipheriv, createHmac, createSign, createVerify, generateKeyPairSync, randomBytes } from 'node:crypto';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { callbackSignature } from '../wechat/callback-signature.js';
import { type PayFields, parsePayXml, payV2Sign, payV2SignatureValid, toPayXml } from '../wechat/pay/pay-v2-xml.js';

/** A call the fake received. */
export interface FakePlatformCall {
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  /** The JSON body, the Pay XML fields, or for multipart the byte length of `media`. */
  readonly body: unknown;
}

export interface FakeWechatPlatformOptions {
  readonly appId?: string;
  readonly secret?: string;
  readonly mchId?: string;
  readonly payKey?: string;
  readonly signType?: 'MD5' | 'HMAC-SHA256';
  /** Virtual payment: the offer and the AppKeys of the live (env 0) and sandbox (env 1) environments. */
  readonly offerId?: string;
  readonly virtualPayAppKey?: string;
  readonly virtualPaySandboxAppKey?: string;
}

/**
 * A local stand-in for the WeChat mini-program platform and WeChat Pay v2, speaking their HTTP shapes:
 * `{errcode, errmsg}` errors, the access token in the query string, stable tokens that expire
 * (42001) or are revoked by a forced refresh (40001), single-use login codes (40029, 40163),
 * HMAC session-key signatures (87009), content checks (87014), image bytes for codes, subscription
 * refusals (43101), and Pay v2 XML signed with the merchant key (a bad signature answers FAIL).
 * For testing your own mini-program flows against `createService({ wechat })`.
 *
 * @example
 * const platform = await startFakeWechatPlatform();
 * // featureSettings.wechat: { miniProgram: { appId: platform.appId, secret: platform.secret, apiBase: platform.url } }
 * const code = platform.loginCode('openid-1'); // what wx.login would give the mini-program
 */
export interface FakeWechatPlatform {
  readonly url: string;
  readonly appId: string;
  readonly secret: string;
  readonly mchId: string;
  readonly payKey: string;
  readonly offerId: string;
  readonly virtualPayAppKey: string;
  readonly virtualPaySandboxAppKey: string;
  readonly calls: FakePlatformCall[];
  /**
   * Virtual-payment coin balances by openid. The fake's own errcodes for `/xpay/*`: 268435460 bad
   * pay_sig, 268435461 bad user signature, 268490004 balance too low, 268490009 unknown order,
   * 268490010 a used order_id.
   */
  readonly balances: Map<string, number>;
  /** Posts an `xpay_goods_deliver_notify` event for a virtual order to `callbackUrl`, signed with `token`. */
  deliverVirtualOrder(outTradeNo: string, callbackUrl: string, token: string): Promise<{ status: number; text: string }>;
  /** Issues a login code for `openid` (a new session key each time, as the platform rotates it). */
  loginCode(openid: string, options?: { readonly unionid?: string }): string;
  /** The current session key of `openid`. */
  sessionKeyOf(openid: string): string;
  /** A `getPhoneNumber` code for a phone number. */
  phoneCode(phoneNumber: string): string;
  /** Encrypts `data` (a watermark with `appId` added) with `openid`'s session key, as the mini-program gets it. */
  encryptForUser(openid: string, data: Record<string, unknown>, appId?: string): { encryptedData: string; iv: string };
  /** Text containing one of these is risky (87014 in v1, `suggest: 'risky'` in v2); images containing their bytes too. */
  readonly riskyWords: Set<string>;
  /** Subscribers who refused messages (43101). */
  readonly refusedSubscribers: Set<string>;
  /** Every access token issued so far now answers 42001 (expired). */
  expireTokens(): void;
  /** Delays every answer whose path starts with `prefix`. */
  slowDown(prefix: string, ms: number): void;
  /** The next call to `path` answers this error instead. */
  failNext(path: string, errcode: number, errmsg: string): void;
  /** Messages sent through subscribe/send and template/send. */
  readonly messages: Array<{ kind: 'subscribe' | 'template' | 'custom'; body: Record<string, unknown> }>;
  /** Posts the verdict of an async media check to `callbackUrl`, signed with the message `token`. */
  finishMediaCheck(traceId: string, suggest: 'pass' | 'review' | 'risky', callbackUrl: string, token: string, options?: { readonly nonce?: string; readonly timestamp?: number }): Promise<{ status: number; text: string }>;
  /**
   * Pay v3: the merchant's key pair and certificate serial the fake checks requests against, the
   * platform's public key its replies and notifications are signed with, and the APIv3 key.
   */
  readonly payV3: { readonly privateKey: string; readonly serialNo: string; readonly platformPublicKey: string; readonly apiV3Key: string };
  /** Posts a Pay v3 notification (AES-256-GCM resource, platform-signed; `forge`: signed with another key). */
  notifyPaymentV3(outTradeNo: string, options?: { readonly forge?: boolean; readonly totalFee?: number }): Promise<{ status: number; text: string }>;
  /** Posts a payment notification for an order to its notify_url or `to` (`forge`: signed with a wrong key). */
  notifyPayment(outTradeNo: string, options?: { readonly forge?: boolean; readonly totalFee?: number; readonly to?: string }): Promise<{ status: number; text: string }>;
  /** Orders as the platform knows them. */
  readonly orders: Map<string, { total_fee: number; refunded: number; notify_url: string; openid: string; refunds: Set<string> }>;
  close(): Promise<void>;
}

/** A 1×1 PNG: what the code endpoints answer. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg==', 'base64');

export async function startFakeWechatPlatform(options: FakeWechatPlatformOptions = {}): Promise<FakeWechatPlatform> {
  const appId = options.appId ?? 'wxfake0000000001';
  const secret = options.secret ?? 'fake-app-secret';
  const mchId = options.mchId ?? '1900000109';
  const payKey = options.payKey ?? '8934e7d15453e97507ef794cf7b0519d';
  const signType = options.signType ?? 'MD5';
  const offerId = options.offerId ?? '1450000000';
  const virtualPayAppKey = options.virtualPayAppKey ?? 'fake-xpay-app-key';
  const virtualPaySandboxAppKey = options.virtualPaySandboxAppKey ?? 'fake-xpay-sandbox-key';
  const balances = new Map<string, number>();
  const keyPair = () => generateKeyPairSync('rsa', { modulusLength: 2048, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } });
  const merchantKeys = keyPair();
  const platformKeys = keyPair();
  const payV3 = { privateKey: merchantKeys.privateKey, serialNo: '5157F09EFDC096DE15EBE81A47057A72', platformPublicKey: platformKeys.publicKey, apiV3Key: 'fake-apiv3-key-0123456789abcdef!' };
  const v3Sign = (key: string, lines: readonly string[]) => createSign('RSA-SHA256').update(lines.map((line) => `${line}\n`).join('')).sign(key, 'base64');
  /** A v3 reply: JSON signed with the platform's key in the Wechatpay-* headers. */
  const v3Reply = (res: ServerResponse, status: number, body: unknown) => {
    const text = JSON.stringify(body);
    const timestamp = String(Math.floor(Date.now() / 1000));
    const nonce = randomBytes(16).toString('hex');
    res
      .writeHead(status, {
        'content-type': 'application/json',
        'wechatpay-timestamp': timestamp,
        'wechatpay-nonce': nonce,
        'wechatpay-serial': 'PLATFORM-SERIAL',
        'wechatpay-signature': v3Sign(platformKeys.privateKey, [timestamp, nonce, text]),
      })
      .end(text);
  };
  /** Whether a v3 request's Authorization is the merchant's signature of it. */
  const v3Authorized = (req: IncomingMessage, path: string, body: string): boolean => {
    const header = req.headers.authorization ?? '';
    if (!header.startsWith('WECHATPAY2-SHA256-RSA2048 ')) return false;
    const parts = Object.fromEntries([...header.slice(26).matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (parts.mchid !== mchId || parts.serial_no !== payV3.serialNo) return false;
    return createVerify('RSA-SHA256').update(`POST\n${path}\n${parts.timestamp}\n${parts.nonce_str}\n${body}\n`).verify(merchantKeys.publicKey, parts.signature ?? '', 'base64');
  };
  const coinOrders = new Map<string, { openid: string; amount: number; env: number }>();
  const calls: FakePlatformCall[] = [];
  const codes = new Map<string, { openid: string; unionid?: string; used: boolean }>();
  const sessionKeys = new Map<string, string>();
  const phoneCodes = new Map<string, string>();
  const tokens = new Map<string, 'live' | 'expired' | 'revoked'>();
  let current: string | null = null;
  let tokenCount = 0;
  let traceCount = 0;
  const delays: Array<[string, number]> = [];
  const failures = new Map<string, { errcode: number; errmsg: string }>();
  const riskyWords = new Set<string>(['forbidden-word']);
  const refusedSubscribers = new Set<string>();
  const messages: FakeWechatPlatform['messages'] = [];
  const orders: FakeWechatPlatform['orders'] = new Map();

  const newToken = () => {
    current = `fake-token-${++tokenCount}-${randomBytes(4).toString('hex')}`;
    tokens.set(current, 'live');
    return current;
  };
  const json = (res: ServerResponse, body: unknown) => res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));
  const xml = (res: ServerResponse, fields: PayFields) => res.writeHead(200, { 'content-type': 'text/xml' }).end(toPayXml(fields));
  const signedXml = (res: ServerResponse, fields: PayFields) => xml(res, { ...fields, sign: payV2Sign(fields, payKey, signType) });
  const risky = (text: string) => [...riskyWords].some((word) => text.includes(word));

  const readBody = async (req: IncomingMessage) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  };

  const tokenError = (token: string | undefined): { errcode: number; errmsg: string } | null => {
    const state = token ? tokens.get(token) : undefined;
    if (state === 'live') return null;
    if (state === 'expired') return { errcode: 42001, errmsg: 'access_token expired' };
    return { errcode: 40001, errmsg: 'invalid credential, access_token is invalid or not latest' };
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const path = url.pathname;
    const query = Object.fromEntries(url.searchParams);
    const raw = await readBody(req);
    const type = req.headers['content-type'] ?? '';
    let body: unknown = raw.length;
    if (/json/.test(type)) body = JSON.parse(raw.toString('utf8') || '{}');
    else if (/xml/.test(type)) body = parsePayXml(raw.toString('utf8'));
    calls.push({ path, query, body });
    const delay = delays.find(([prefix]) => path.startsWith(prefix))?.[1];
    if (delay) await new Promise((resolve) => setTimeout(resolve, delay));
    const failure = failures.get(path);
    if (failure) {
      failures.delete(path);
      return json(res, failure);
    }
    const b = (body ?? {}) as Record<string, unknown>;
    const needsToken = path.startsWith('/wxa/') || path.startsWith('/cgi-bin/message') || path.startsWith('/cgi-bin/wxaapp');
    if (needsToken) {
      const error = tokenError(query.access_token);
      if (error) return json(res, error);
    }
    switch (path) {
      case '/cgi-bin/stable_token': {
        if (b.appid !== appId || b.secret !== secret) return json(res, { errcode: 40125, errmsg: 'invalid appsecret' });
        if (b.force_refresh === true) {
          for (const [token, state] of tokens) if (state === 'live') tokens.set(token, 'revoked');
          return json(res, { access_token: newToken(), expires_in: 7200 });
        }
        return json(res, { access_token: current && tokens.get(current) === 'live' ? current : newToken(), expires_in: 7200 });
      }
      case '/sns/jscode2session': {
        if (query.appid !== appId || query.secret !== secret) return json(res, { errcode: 40125, errmsg: 'invalid appsecret' });
        const entry = codes.get(query.js_code ?? '');
        if (!entry) return json(res, { errcode: 40029, errmsg: 'invalid code' });
        if (entry.used) return json(res, { errcode: 40163, errmsg: 'code been used' });
        entry.used = true;
        return json(res, { openid: entry.openid, session_key: sessionKeys.get(entry.openid), ...(entry.unionid ? { unionid: entry.unionid } : {}) });
      }
      case '/wxa/checksession': {
        const key = sessionKeys.get(query.openid ?? '');
        const expected = key ? createHmac('sha256', key).update('').digest('hex') : '';
        return json(res, key && query.signature === expected ? { errcode: 0, errmsg: 'ok' } : { errcode: 87009, errmsg: 'invalid signature' });
      }
      case '/wxa/business/getuserphonenumber': {
        const phone = phoneCodes.get(String(b.code ?? ''));
        if (!phone) return json(res, { errcode: 40029, errmsg: 'invalid code' });
        return json(res, { errcode: 0, errmsg: 'ok', phone_info: { phoneNumber: phone, purePhoneNumber: phone, countryCode: '86', watermark: { timestamp: Math.floor(Date.now() / 1000), appid: appId } } });
      }
      case '/wxa/msg_sec_check': {
        const content = String(b.content ?? '');
        if (b.version === 2) {
          const bad = risky(content);
          return json(res, {
            errcode: 0,
            errmsg: 'ok',
            result: { suggest: bad ? 'risky' : 'pass', label: bad ? 20002 : 100 },
            detail: [{ strategy: 'content_model', errcode: 0, suggest: bad ? 'risky' : 'pass', label: bad ? 20002 : 100, prob: bad ? 90 : 0 }],
            trace_id: `trace-${++traceCount}`,
          });
        }
        return json(res, risky(content) ? { errcode: 87014, errmsg: 'risky content' } : { errcode: 0, errmsg: 'ok' });
      }
      case '/wxa/img_sec_check': {
        if (!/multipart\/form-data/.test(type) || !raw.includes('name="media"')) return json(res, { errcode: 41005, errmsg: 'media data missing' });
        if (raw.length > 1024 * 1024 + 4096) return json(res, { errcode: 40006, errmsg: 'invalid meida size' });
        return json(res, [...riskyWords].some((word) => raw.includes(word)) ? { errcode: 87014, errmsg: 'risky content' } : { errcode: 0, errmsg: 'ok' });
      }
      case '/wxa/media_check_async':
        return json(res, { errcode: 0, errmsg: 'ok', trace_id: `media-trace-${++traceCount}` });
      case '/wxa/getwxacode':
      case '/cgi-bin/wxaapp/createwxaqrcode':
      case '/wxa/getwxacodeunlimit': {
        if (path === '/wxa/getwxacodeunlimit') {
          if (typeof b.scene !== 'string' || b.scene.length === 0 || b.scene.length > 32) return json(res, { errcode: 40129, errmsg: 'invalid scene' });
          if (typeof b.page === 'string' && b.page.startsWith('/')) return json(res, { errcode: 41030, errmsg: 'invalid page' });
        } else if (typeof b.path !== 'string' || b.path.length === 0) return json(res, { errcode: 41030, errmsg: 'invalid page' });
        return res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
      }
      case '/cgi-bin/message/subscribe/send': {
        if (refusedSubscribers.has(String(b.touser))) return json(res, { errcode: 43101, errmsg: 'user refuse to accept the msg' });
        messages.push({ kind: 'subscribe', body: b });
        return json(res, { errcode: 0, errmsg: 'ok' });
      }
      case '/cgi-bin/message/custom/send': {
        const type = String(b.msgtype);
        const content = b[type] as Record<string, unknown> | undefined;
        if (!['text', 'image', 'link'].includes(type) || typeof content !== 'object' || content === null) return json(res, { errcode: 40008, errmsg: 'invalid message type' });
        if (type === 'text' && typeof content.content !== 'string') return json(res, { errcode: 44003, errmsg: 'empty news data' });
        messages.push({ kind: 'custom', body: b });
        return json(res, { errcode: 0, errmsg: 'ok' });
      }
      case '/cgi-bin/message/template/send':
        messages.push({ kind: 'template', body: b });
        return json(res, { errcode: 0, errmsg: 'ok', msgid: 200228332 + messages.length });
      case '/xpay/query_user_balance':
      case '/xpay/currency_pay':
      case '/xpay/cancel_currency_pay':
      case '/xpay/query_order': {
        const text = raw.toString('utf8');
        const env = b.env === 1 ? 1 : 0;
        const appKey = env === 1 ? virtualPaySandboxAppKey : virtualPayAppKey;
        if (query.pay_sig !== createHmac('sha256', appKey).update(`${path}&${text}`).digest('hex')) return json(res, { errcode: 268435460, errmsg: 'pay_sig error' });
        const openid = String(b.openid ?? '');
        if (path !== '/xpay/query_order') {
          const key = sessionKeys.get(openid);
          if (!key || query.signature !== createHmac('sha256', key).update(text).digest('hex')) return json(res, { errcode: 268435461, errmsg: 'signature error' });
        }
        const balance = balances.get(openid) ?? 0;
        if (path === '/xpay/query_user_balance') return json(res, { errcode: 0, errmsg: 'ok', balance, present_balance: 0, sum_save: balance, sum_present: 0, sum_balance: balance, sum_cost: 0, first_save_flag: false });
        if (path === '/xpay/currency_pay') {
          const amount = Number(b.amount);
          if (coinOrders.has(String(b.order_id))) return json(res, { errcode: 268490010, errmsg: 'order_id used' });
          if (amount > balance) return json(res, { errcode: 268490004, errmsg: 'balance not enough' });
          balances.set(openid, balance - amount);
          coinOrders.set(String(b.order_id), { openid, amount, env });
          return json(res, { errcode: 0, errmsg: 'ok', order_id: b.order_id, balance: balance - amount, used_present_amount: 0 });
        }
        if (path === '/xpay/cancel_currency_pay') {
          const paid = coinOrders.get(String(b.pay_order_id));
          if (!paid || paid.openid !== openid) return json(res, { errcode: 268490009, errmsg: 'order not exist' });
          if (Number(b.amount) > paid.amount) return json(res, { errcode: 268490004, errmsg: 'amount exceeds the payment' });
          paid.amount -= Number(b.amount);
          balances.set(openid, balance + Number(b.amount));
          return json(res, { errcode: 0, errmsg: 'ok', order_id: b.order_id });
        }
        const order = coinOrders.get(String(b.order_id ?? ''));
        if (!order || order.openid !== openid) return json(res, { errcode: 268490009, errmsg: 'order not exist' });
        return json(res, { errcode: 0, errmsg: 'ok', order: { order_id: b.order_id, status: 2, order_fee: order.amount, env_type: order.env + 1, openid } });
      }
      case '/v3/pay/transactions/jsapi': {
        if (!v3Authorized(req, path, raw.toString('utf8'))) return v3Reply(res, 401, { code: 'SIGN_ERROR', message: 'signature verification failed' });
        const amount = (b.amount ?? {}) as { total?: number };
        const payer = (b.payer ?? {}) as { openid?: string };
        if (b.appid !== appId || b.mchid !== mchId || !Number.isSafeInteger(amount.total) || typeof payer.openid !== 'string') return v3Reply(res, 400, { code: 'PARAM_ERROR', message: 'invalid request' });
        if (orders.has(String(b.out_trade_no))) return v3Reply(res, 400, { code: 'OUT_TRADE_NO_USED', message: 'out_trade_no used' });
        orders.set(String(b.out_trade_no), { total_fee: amount.total!, refunded: 0, notify_url: String(b.notify_url), openid: payer.openid, refunds: new Set() });
        return v3Reply(res, 200, { prepay_id: `wx${Date.now()}${randomBytes(6).toString('hex')}` });
      }
      case '/v3/refund/domestic/refunds': {
        if (!v3Authorized(req, path, raw.toString('utf8'))) return v3Reply(res, 401, { code: 'SIGN_ERROR', message: 'signature verification failed' });
        const order = orders.get(String(b.out_trade_no));
        const amount = (b.amount ?? {}) as { refund?: number };
        if (!order) return v3Reply(res, 404, { code: 'RESOURCE_NOT_EXISTS', message: 'order does not exist' });
        const refundNo = String(b.out_refund_no);
        const reply = { refund_id: `r-${refundNo}`, out_refund_no: refundNo, status: 'PROCESSING', amount: { refund: amount.refund, total: order.total_fee, currency: 'CNY' } };
        if (order.refunds.has(refundNo)) return v3Reply(res, 200, reply);
        if (order.refunded + Number(amount.refund) > order.total_fee) return v3Reply(res, 403, { code: 'NOT_ENOUGH', message: 'refund amount exceeds the order' });
        order.refunded += Number(amount.refund);
        order.refunds.add(refundNo);
        return v3Reply(res, 200, reply);
      }
      case '/pay/unifiedorder': {
        const fields = body as Record<string, string> | null;
        if (!fields || !payV2SignatureValid(fields, payKey, (fields.sign_type as 'MD5') ?? 'MD5')) return xml(res, { return_code: 'FAIL', return_msg: 'SIGNERROR' });
        if (fields.appid !== appId || fields.mch_id !== mchId) return xml(res, { return_code: 'FAIL', return_msg: 'appid and mch_id do not match' });
        if (orders.has(fields.out_trade_no!)) return signedXml(res, { return_code: 'SUCCESS', result_code: 'FAIL', err_code: 'OUT_TRADE_NO_USED', err_code_des: 'out_trade_no used', appid: appId, mch_id: mchId, nonce_str: randomBytes(8).toString('hex') });
        orders.set(fields.out_trade_no!, { total_fee: Number(fields.total_fee), refunded: 0, notify_url: fields.notify_url!, openid: fields.openid!, refunds: new Set() });
        return signedXml(res, { return_code: 'SUCCESS', return_msg: 'OK', result_code: 'SUCCESS', appid: appId, mch_id: mchId, nonce_str: randomBytes(8).toString('hex'), prepay_id: `wx${Date.now()}${randomBytes(6).toString('hex')}`, trade_type: 'JSAPI' });
      }
      case '/secapi/pay/refund': {
        const fields = body as Record<string, string> | null;
        if (!fields || !payV2SignatureValid(fields, payKey, (fields.sign_type as 'MD5') ?? 'MD5')) return xml(res, { return_code: 'FAIL', return_msg: 'SIGNERROR' });
        const order = orders.get(fields.out_trade_no ?? '');
        const base = { return_code: 'SUCCESS', appid: appId, mch_id: mchId, nonce_str: randomBytes(8).toString('hex') };
        if (!order) return signedXml(res, { ...base, result_code: 'FAIL', err_code: 'ORDERNOTEXIST', err_code_des: 'order does not exist' });
        if (order.refunds.has(fields.out_refund_no!)) return signedXml(res, { ...base, result_code: 'SUCCESS', out_refund_no: fields.out_refund_no!, refund_id: `r-${fields.out_refund_no}`, refund_fee: fields.refund_fee! });
        if (order.refunded + Number(fields.refund_fee) > order.total_fee) return signedXml(res, { ...base, result_code: 'FAIL', err_code: 'ERROR', err_code_des: 'refund amount exceeds the order' });
        order.refunded += Number(fields.refund_fee);
        order.refunds.add(fields.out_refund_no!);
        return signedXml(res, { ...base, result_code: 'SUCCESS', out_refund_no: fields.out_refund_no!, refund_id: `r-${fields.out_refund_no}`, refund_fee: fields.refund_fee! });
      }
      default:
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ errcode: 404, errmsg: 'not found' }));
    }
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: Error) => {
      if (!res.headersSent) res.writeHead(500).end(error.message);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const post = async (target: string, body: string, contentType: string) => {
    const res = await fetch(target, { method: 'POST', headers: { 'content-type': contentType }, body });
    return { status: res.status, text: await res.text() };
  };

  return {
    url,
    appId,
    secret,
    mchId,
    payKey,
    payV3,
    offerId,
    virtualPayAppKey,
    virtualPaySandboxAppKey,
    balances,
    calls,
    riskyWords,
    refusedSubscribers,
    messages,
    orders,
    loginCode(openid, opts = {}) {
      const code = randomBytes(12).toString('hex');
      codes.set(code, { openid, ...(opts.unionid ? { unionid: opts.unionid } : {}), used: false });
      sessionKeys.set(openid, randomBytes(16).toString('base64'));
      return code;
    },
    sessionKeyOf(openid) {
      const key = sessionKeys.get(openid);
      if (!key) throw new Error(`no session key for ${openid}`);
      return key;
    },
    phoneCode(phoneNumber) {
      const code = randomBytes(12).toString('hex');
      phoneCodes.set(code, phoneNumber);
      return code;
    },
    encryptForUser(openid, data, watermarkAppId = appId) {
      const iv = randomBytes(16);
      const key = sessionKeys.get(openid);
      if (!key) throw new Error(`no session key for ${openid}`);
      const cipher = createCipheriv('aes-128-cbc', Buffer.from(key, 'base64'), iv);
      const plain = JSON.stringify({ ...data, watermark: { timestamp: Math.floor(Date.now() / 1000), appid: watermarkAppId } });
      return { encryptedData: Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]).toString('base64'), iv: iv.toString('base64') };
    },
    expireTokens() {
      for (const [token, state] of tokens) if (state === 'live') tokens.set(token, 'expired');
      current = null;
    },
    slowDown(prefix, ms) {
      delays.unshift([prefix, ms]);
    },
    failNext(path, errcode, errmsg) {
      failures.set(path, { errcode, errmsg });
    },
    async finishMediaCheck(traceId, suggest, callbackUrl, token, opts = {}) {
      const timestamp = String(opts.timestamp ?? Math.floor(Date.now() / 1000));
      const nonce = opts.nonce ?? randomBytes(8).toString('hex');
      const signature = callbackSignature(token, timestamp, nonce);
      const event = {
        ToUserName: 'gh_fake',
        FromUserName: 'platform',
        CreateTime: Number(timestamp),
        MsgType: 'event',
        Event: 'wxa_media_check',
        appid: appId,
        trace_id: traceId,
        version: 2,
        detail: [{ strategy: 'content_model', errcode: 0, suggest, label: suggest === 'pass' ? 100 : 20002, prob: 90 }],
        errcode: 0,
        errmsg: 'ok',
        result: { suggest, label: suggest === 'pass' ? 100 : 20002 },
      };
      const sep = callbackUrl.includes('?') ? '&' : '?';
      return post(`${callbackUrl}${sep}${new URLSearchParams({ signature, timestamp, nonce })}`, JSON.stringify(event), 'application/json');
    },
    async notifyPaymentV3(outTradeNo, opts = {}) {
      const order = orders.get(outTradeNo);
      if (!order) throw new Error(`no order ${outTradeNo}`);
      const transaction = {
        appid: appId,
        mchid: mchId,
        out_trade_no: outTradeNo,
        transaction_id: `4200000${outTradeNo.slice(-12)}`,
        trade_type: 'JSAPI',
        trade_state: 'SUCCESS',
        trade_state_desc: 'paid',
        bank_type: 'OTHERS',
        success_time: '2026-11-24T10:30:00+08:00',
        payer: { openid: order.openid },
        amount: { total: opts.totalFee ?? order.total_fee, payer_total: order.total_fee, currency: 'CNY', payer_currency: 'CNY' },
      };
      const nonce = randomBytes(6).toString('hex');
      const cipher = createCipheriv('aes-256-gcm', Buffer.from(payV3.apiV3Key, 'utf8'), Buffer.from(nonce, 'utf8'));
      cipher.setAAD(Buffer.from('transaction', 'utf8'));
      const sealed = Buffer.concat([cipher.update(JSON.stringify(transaction), 'utf8'), cipher.final(), cipher.getAuthTag()]);
      const body = JSON.stringify({
        id: randomBytes(8).toString('hex'),
        create_time: '2026-11-24T10:30:01+08:00',
        resource_type: 'encrypt-resource',
        event_type: 'TRANSACTION.SUCCESS',
        summary: 'payment succeeded',
        resource: { original_type: 'transaction', algorithm: 'AEAD_AES_256_GCM', ciphertext: sealed.toString('base64'), associated_data: 'transaction', nonce },
      });
      const timestamp = String(Math.floor(Date.now() / 1000));
      const headerNonce = randomBytes(16).toString('hex');
      const signingKey = opts.forge ? merchantKeys.privateKey : platformKeys.privateKey;
      const res = await fetch(order.notify_url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'wechatpay-timestamp': timestamp,
          'wechatpay-nonce': headerNonce,
          'wechatpay-serial': 'PLATFORM-SERIAL',
          'wechatpay-signature': v3Sign(signingKey, [timestamp, headerNonce, body]),
        },
        body,
      });
      return { status: res.status, text: await res.text() };
    },
    async notifyPayment(outTradeNo, opts = {}) {
      const order = orders.get(outTradeNo);
      if (!order) throw new Error(`no order ${outTradeNo}`);
      const fields: PayFields = {
        appid: appId,
        mch_id: mchId,
        nonce_str: randomBytes(8).toString('hex'),
        result_code: 'SUCCESS',
        return_code: 'SUCCESS',
        openid: order.openid,
        out_trade_no: outTradeNo,
        total_fee: String(opts.totalFee ?? order.total_fee),
        cash_fee: String(order.total_fee),
        fee_type: 'CNY',
        bank_type: 'OTHERS',
        trade_type: 'JSAPI',
        is_subscribe: 'N',
        time_end: '20261124103000',
        transaction_id: `4200000${outTradeNo.slice(-12)}`,
      };
      const sign = payV2Sign(fields, opts.forge ? 'not-the-merchant-key' : payKey, signType);
      return post(opts.to ?? order.notify_url, toPayXml({ ...fields, sign }), 'text/xml');
    },
    async deliverVirtualOrder(outTradeNo, callbackUrl, token) {
      const timestamp = String(Math.floor(Date.now() / 1000));
      const nonce = randomBytes(8).toString('hex');
      const event = {
        ToUserName: 'gh_fake',
        FromUserName: 'platform',
        CreateTime: Number(timestamp),
        MsgType: 'event',
        Event: 'xpay_goods_deliver_notify',
        OpenId: 'openid',
        OutTradeNo: outTradeNo,
        Env: 0,
        WeChatPayInfo: { MchOrderNo: `mch-${outTradeNo}`, TransactionId: `4200${outTradeNo.slice(-10)}`, PaidTime: Number(timestamp) },
      };
      const signature = callbackSignature(token, timestamp, nonce);
      const sep = callbackUrl.includes('?') ? '&' : '?';
      return post(`${callbackUrl}${sep}${new URLSearchParams({ signature, timestamp, nonce })}`, JSON.stringify(event), 'application/json');
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
