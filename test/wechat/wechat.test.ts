import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import { type FakeWechatPlatform, startFakeWechatPlatform } from '../../src/testing/fake-wechat-platform.js';
import { TEST_APP, type TestServer, startTestServer } from '../helpers/server.js';
import { openSqlite } from '../../src/sqlite.js';
import { localFileStore } from '../../src/files/local-file-store.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { callbackSignature } from '../../src/wechat/callback-signature.js';
import { createHash, createHmac, createPublicKey, createVerify } from 'node:crypto';
import { createRequire } from 'node:module';

const MESSAGE_TOKEN = 'push-token-1';

let platform: FakeWechatPlatform;
let server: TestServer;
let clock: FakeClock;
let fileRoot: string;
const received: unknown[] = [];

async function start(extra: Record<string, unknown> = {}) {
  clock = new FakeClock(Date.now());
  fileRoot = mkdtempSync(join(tmpdir(), 'svc-wechat-'));
  const account = { appId: platform.appId, secret: platform.secret, apiBase: platform.url, timeoutMs: 1000 };
  server = await startTestServer({
    clock,
    // The SDK's headers (X-Bmob-*) as well as the default brand.
    brands: ['Svc', 'Bmob'],
    // SQLite on a temp file, the embedded default: the link, order and media-check tables with their unique indexes.
    storage: openSqlite(join(fileRoot, 'svcbase.db')),
    files: { store: localFileStore({ root: fileRoot }), media: false },
    functions: {
      deployed: false,
      definitions: {
        onMediaVerdict: (req, res) => {
          received.push(req.body);
          res.send('ok');
        },
      },
    },
    applications: [
      {
        ...TEST_APP,
        featureSettings: {
          wechat: {
            miniProgram: account,
            officialAccount: { ...account },
            messageToken: MESSAGE_TOKEN,
            mediaCheckFunction: 'onMediaVerdict',
            notifyMsgPerDay: 3,
            pay: { mchId: platform.mchId, key: platform.payKey, apiBase: platform.url, notifyUrl: 'http://placeholder/1/pay/notify/test-app' },
            virtualPay: { offerId: platform.offerId, appKey: platform.virtualPayAppKey, sandboxAppKey: platform.virtualPaySandboxAppKey },
            ...extra,
          },
        },
      },
    ],
  });
}

beforeAll(async () => {
  platform = await startFakeWechatPlatform();
});
afterAll(() => platform.close());

describe('mini-program login (wechatAppv1, authData.weapp)', () => {
  beforeAll(() => start());
  afterAll(async () => {
    await server.close();
    rmSync(fileRoot, { recursive: true, force: true });
  });

  it('turns a login code into authData.weapp, then signs up (201) and logs in (200) by it', async () => {
    const code = platform.loginCode('openid-ann', { unionid: 'union-ann' });
    const login = await server.request('POST', `/1/wechatAppv1/${code}`, { body: { anonymous_code: '' } });
    expect(login.status).toBe(200);
    expect(login.body).toEqual({ openid: 'openid-ann', sk: platform.sessionKeyOf('openid-ann'), expires_in: 7200, unionid: 'union-ann' });

    const created = await server.request('POST', '/1/usersv1', { body: { authData: { weapp: login.body } } });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`${server.url}/1/users/${created.body.objectId}`);
    expect(created.body.username).toMatch(/^[0-9a-f]{16}$/);
    expect(created.body.sessionToken).toEqual(expect.any(String));
    expect(created.body.authData).toEqual({ weapp: { openid: 'openid-ann', unionid: 'union-ann', sk: login.body.sk } });
    expect(created.body.password).toBeUndefined();

    const again = await server.request('POST', '/1/users', { body: { authData: { weapp: { openid: 'openid-ann', session_key: login.body.sk } } } });
    expect(again.status).toBe(200);
    expect(again.body.objectId).toBe(created.body.objectId);
    expect(again.body.sessionToken).not.toBe(created.body.sessionToken);

    // The user itself sees its authData; other callers never do.
    const me = await server.request('GET', '/1/users/me', { headers: { 'X-Svc-Session-Token': again.body.sessionToken } });
    expect(me.body.authData).toEqual({ weapp: { openid: 'openid-ann', unionid: 'union-ann' } });
    const other = await server.request('GET', `/1/users/${created.body.objectId}`);
    expect(other.body.authData).toBeUndefined();
    const links = await server.request('GET', '/1/classes/_AuthLink');
    expect(links.status).toBe(403);
  });

  it('refuses an openid without its session key, a forged key, a reused or unknown code', async () => {
    const code = platform.loginCode('openid-bob');
    expect((await server.request('POST', `/1/wechatAppv1/${code}`)).status).toBe(200);
    const reused = await server.request('POST', `/1/wechatAppv1/${code}`);
    expect(reused.body.code).toBe(208);
    expect((await server.request('POST', '/1/wechatAppv1/nosuchcode')).body.code).toBe(208);
    expect((await server.request('POST', `/1/wechatAppv1/${encodeURIComponent("x' OR 1=1")}`)).body.code).toBe(208);

    const noKey = await server.request('POST', '/1/usersv1', { body: { authData: { weapp: { openid: 'openid-bob' } } } });
    expect(noKey.body).toEqual({ code: 208, error: 'authData error: authData.weapp needs sk (the session key).' });
    const forged = await server.request('POST', '/1/usersv1', { body: { authData: { weapp: { openid: 'openid-bob', sk: Buffer.alloc(16, 1).toString('base64') } } } });
    expect(forged.body.code).toBe(208);
    const unknownPlatform = await server.request('POST', '/1/usersv1', { body: { authData: { weibo: { uid: '1', access_token: 'x' } } } });
    expect(unknownPlatform.body.code).toBe(208);
    for (const bad of [null, 'weapp', [], { __proto__: { a: 1 } }, { weapp: 'x' }, { 'We App': {} }]) {
      const res = await server.request('POST', '/1/usersv1', { body: { authData: bad } });
      expect(res.body.code).toBe(208);
    }
    const users = await server.request('GET', '/1/users', { auth: 'master' });
    expect(users.body.results.every((u: { username: string }) => u.username !== 'openid-bob')).toBe(true);
  });

  it('accepts a session key the ledger has not seen when the platform confirms it (checksession)', async () => {
    platform.loginCode('openid-cy'); // the mini-program logged in elsewhere; this server never saw the key
    const sk = platform.sessionKeyOf('openid-cy');
    const res = await server.request('POST', '/1/usersv1', { body: { authData: { weapp: { openid: 'openid-cy', sk } } } });
    expect(res.status).toBe(201);
  });

  it('makes one user of many racing first logins of one openid', async () => {
    const code = platform.loginCode('openid-race');
    const weapp = (await server.request('POST', `/1/wechatAppv1/${code}`)).body;
    const replies = await Promise.all(Array.from({ length: 12 }, () => server.request('POST', '/1/usersv1', { body: { authData: { weapp } } })));
    const ids = new Set(replies.map((r) => r.body.objectId));
    expect(ids.size).toBe(1);
    expect(replies.filter((r) => r.status === 201)).toHaveLength(1);
  });

  it('links and unlinks an identity on an existing user, refusing one linked to another user', async () => {
    const signUp = await server.request('POST', '/1/users', { body: { username: 'dora', password: 'pw-dora-1' } });
    const token = signUp.body.sessionToken as string;
    const code = platform.loginCode('openid-dora');
    const weapp = (await server.request('POST', `/1/wechatAppv1/${code}`)).body;
    const linked = await server.request('PUT', `/1/users/${signUp.body.objectId}`, { body: { authData: { weapp } }, headers: { 'X-Svc-Session-Token': token } });
    expect(linked.status).toBe(200);
    expect(linked.body).toMatchObject({ username: 'dora', authData: { weapp: { openid: 'openid-dora' } } });
    const login = await server.request('POST', '/1/usersv1', { body: { authData: { weapp } } });
    expect(login.body.objectId).toBe(signUp.body.objectId);

    const other = await server.request('POST', '/1/users', { body: { username: 'eve', password: 'pw-eve-1' } });
    const stolen = await server.request('PUT', `/1/users/${other.body.objectId}`, { body: { authData: { weapp } }, headers: { 'X-Svc-Session-Token': other.body.sessionToken } });
    expect(stolen.body).toEqual({ code: 208, error: 'authData already linked by other user.' });
    const notSelf = await server.request('PUT', `/1/users/${signUp.body.objectId}`, { body: { authData: { weapp: null } }, headers: { 'X-Svc-Session-Token': other.body.sessionToken } });
    expect(notSelf.body.code).toBe(206);

    const unlinked = await server.request('PUT', `/1/users/${signUp.body.objectId}`, { body: { authData: { weapp: null } }, headers: { 'X-Svc-Session-Token': token } });
    expect(unlinked.status).toBe(200);
    expect(unlinked.body.authData).toBeUndefined();
    const fresh = await server.request('POST', '/1/usersv1', { body: { authData: { weapp } } });
    expect(fresh.status).toBe(201);
    expect(fresh.body.objectId).not.toBe(signUp.body.objectId);
  });

  it('checks session keys, decrypts user data for this appid only, and reads phone numbers', async () => {
    const code = platform.loginCode('openid-fay');
    const weapp = (await server.request('POST', `/1/wechatAppv1/${code}`)).body;
    expect((await server.request('POST', '/1/wechatApp/checkSessionKey', { body: { openid: 'openid-fay', sk: weapp.sk } })).body).toEqual({ errcode: 0, errmsg: 'ok' });
    const stale = await server.request('POST', '/1/wechatApp/checkSessionKey', { body: { openid: 'openid-fay', sk: 'c3RhbGUta2V5LTEyMzQ1Ng==' } });
    expect(stale.status).toBe(200);
    expect(stale.body.errcode).toBe(87009);

    const sealed = platform.encryptForUser('openid-fay', { nickName: 'Fay', gender: 2 });
    const opened = await server.request('POST', '/1/wechatApp/decryptionv1', { body: { sk: weapp.sk, ...sealed } });
    expect(opened.body).toMatchObject({ nickName: 'Fay', gender: 2, watermark: { appid: platform.appId } });
    const foreign = platform.encryptForUser('openid-fay', { nickName: 'Fay' }, 'wx-another-app');
    expect((await server.request('POST', '/1/wechatApp/decryptionv1', { body: { sk: weapp.sk, ...foreign } })).body.code).toBe(11208);
    expect((await server.request('POST', '/1/wechatApp/decryptionv1', { body: { sk: 'bm90LWEta2V5LTEyMzQ1Ng==', ...sealed } })).body.code).toBe(11208);
    expect((await server.request('POST', '/1/wechatApp/decryptionv1', { body: { sk: "' OR 1=1 --", ...sealed } })).body.code).toBe(11208);

    const phone = await server.request('POST', '/1/wechatApp/getPhoneNumber', { body: { code: platform.phoneCode('13800138000') } });
    expect(phone.body.phone_info).toMatchObject({ phoneNumber: '13800138000', countryCode: '86' });
    expect((await server.request('POST', '/1/wechatApp/getPhoneNumber', { body: { code: 'wrong' } })).body).toMatchObject({ code: 301 });
    expect((await server.request('POST', '/1/wechatApp/getPhoneNumber', { body: {} })).body.code).toBe(201);
  });
});

describe('access tokens, content checks, messages, codes and media verdicts', () => {
  beforeAll(() => start());
  afterAll(async () => {
    await server.close();
    rmSync(fileRoot, { recursive: true, force: true });
  });
  afterEach(() => {
    platform.calls.length = 0;
  });

  it('gives the access token to the master key only, fetched once and cached', async () => {
    platform.calls.length = 0;
    // fix 39.7: the REST key gets the coded refusal refund and push give (403 / 11006), not a bare 401.
    const refused = await server.request('GET', '/1/wechatApp/getAccessToken');
    expect([refused.status, refused.body]).toEqual([403, { code: 11006, error: 'this operation needs the master key.' }]);
    const refund = await server.request('POST', '/1/pay/refund', { body: { order_no: 'any', refund_fee: 1, desc: 'x' } });
    const push = await server.request('POST', '/1/push', { body: { data: { alert: 'x' } } });
    expect([refund.status, refund.body]).toEqual([refused.status, refused.body]);
    expect([push.status, push.body]).toEqual([refused.status, refused.body]);
    // A wrong key is still an authentication failure: 401 without a code.
    const wrong = await fetch(`${server.url}/1/wechatApp/getAccessToken`, { headers: { 'X-Svc-Application-Id': TEST_APP.applicationId, 'X-Svc-REST-API-Key': 'wrong' } });
    expect([wrong.status, await wrong.json()]).toEqual([401, { error: 'unauthorized' }]);
    const first = await server.request('GET', '/1/wechatApp/getAccessToken', { auth: 'master' });
    expect(first.body.access_token).toMatch(/^fake-token-/);
    const again = await Promise.all(Array.from({ length: 5 }, () => server.request('GET', '/1/wechatApp/getAccessToken', { auth: 'master' })));
    expect(new Set(again.map((r) => r.body.access_token))).toEqual(new Set([first.body.access_token]));
    expect(platform.calls.filter((c) => c.path === '/cgi-bin/stable_token')).toHaveLength(1);
  });

  it('renews an expired token mid-flight and retries the call once', async () => {
    await server.request('POST', '/1/wechatApp/checkMsg', { body: { content: 'hello' } });
    platform.calls.length = 0;
    platform.expireTokens();
    const res = await server.request('POST', '/1/wechatApp/checkMsg', { body: { content: 'hello again' } });
    expect(res.body).toEqual({ msg: 'ok' });
    expect(platform.calls.map((c) => c.path)).toEqual(['/wxa/msg_sec_check', '/cgi-bin/stable_token', '/wxa/msg_sec_check']);
    // One refresh for many concurrent calls that all met the expired token.
    platform.expireTokens();
    platform.calls.length = 0;
    const many = await Promise.all(Array.from({ length: 6 }, (_, i) => server.request('POST', '/1/wechatApp/checkMsg', { body: { content: `text ${i}` } })));
    expect(many.every((r) => r.body.msg === 'ok')).toBe(true);
    expect(platform.calls.filter((c) => c.path === '/cgi-bin/stable_token')).toHaveLength(1);
  });

  it('checks text: v1 answers ok or 10007, v2 passes the verdict on; limits and bad input are coded', async () => {
    expect((await server.request('POST', '/1/wechatApp/checkMsg', { body: { content: 'a forbidden-word here' } })).body).toEqual({ code: 10007, error: 'CheckMsg errcode:87014 risky content' });
    const v2 = await server.request('POST', '/1/wechatApp/checkMsg', { body: { content: 'a forbidden-word', openid: 'openid-x', scene: 2, version: 2 } });
    expect(v2.body).toMatchObject({ errcode: 0, result: { suggest: 'risky' }, trace_id: expect.any(String) });
    expect((await server.request('POST', '/1/wechatApp/checkMsg', { body: { content: '' } })).body.code).toBe(107);
    expect((await server.request('POST', '/1/wechatApp/checkMsg', { body: { content: 42 } })).body.code).toBe(107);
    expect((await server.request('POST', '/1/wechatApp/checkMsg', { body: { content: 'x'.repeat(500 * 1024 + 1) } })).body.code).toBe(11005);
    expect((await server.request('POST', '/1/wechatApp/checkMsg', { body: { content: 'hi', version: 2, openid: 'o', scene: 9 } })).body.code).toBe(11005);
    platform.failNext('/wxa/msg_sec_check', 45009, 'reach max api daily quota limit');
    expect((await server.request('POST', '/1/wechatApp/checkMsg', { body: { content: 'hi' } })).body).toEqual({ code: 301, error: 'this api response err: errcode 45009, reach max api daily quota limit' });
  });

  it('answers 11206 when the platform is too slow', async () => {
    platform.slowDown("/wxa/business", 1500);
    const res = await server.request('POST', '/1/wechatApp/getPhoneNumber', { body: { code: platform.phoneCode('13800138001') } });
    expect(res.status).toBe(424);
    expect(res.body.code).toBe(11206);
  });

  it('checks images through the platform (multipart from the SDK)', async () => {
    const form = new FormData();
    form.append('file', new Blob([Buffer.from('harmless image bytes')]), 'a.png');
    const ok = await fetch(`${server.url}/1/wechatApp/checkImg/a.png`, { method: 'POST', headers: { 'X-Svc-Application-Id': TEST_APP.applicationId, 'X-Svc-REST-API-Key': TEST_APP.restApiKey }, body: form });
    expect(await ok.json()).toEqual({ msg: 'ok' });
    const bad = new FormData();
    bad.append('file', new Blob([Buffer.from('bytes with forbidden-word inside')]), 'b.png');
    const refused = await fetch(`${server.url}/1/wechatApp/checkImg/b.png`, { method: 'POST', headers: { 'X-Svc-Application-Id': TEST_APP.applicationId, 'X-Svc-REST-API-Key': TEST_APP.restApiKey }, body: bad });
    expect(((await refused.json()) as { code: number }).code).toBe(10007);
  });

  it('makes mini-program codes through the platform for interfaces a, b and c', async () => {
    for (const iface of ['a', 'b', 'c']) {
      const res = await server.request('POST', '/1/wechatApp/qr/generatecode', { body: { path: 'pages/index/index', width: 280, interface: iface, scene: 'id=42' } });
      expect(Buffer.from(res.body.base64, 'base64').subarray(1, 4).toString()).toBe('PNG');
    }
    expect(platform.calls.map((c) => c.path)).toEqual(expect.arrayContaining(['/wxa/getwxacode', '/wxa/getwxacodeunlimit', '/cgi-bin/wxaapp/createwxaqrcode']));
    const stored = await server.request('POST', '/1/wechatApp/qr/generatecode', { body: { path: 'pages/a', width: 300, type: 1 } });
    expect(stored.body).toMatchObject({ cdn: 'upyun', filename: 'qrcode.png' });
    const badScene = await server.request('POST', '/1/wechatApp/qr/generatecode', { body: { path: 'pages/a', interface: 'b', scene: 'x'.repeat(32) + 'y' } });
    expect(badScene.body.code).toBe(11005); // refused before the platform: scene ≤ 32
  });

  it('sends subscription messages (43101 when refused) and at most notifyMsgPerDay owner notifications', async () => {
    const message = { touser: 'openid-g', template_id: 'tpl-1', page: 'pages/index', form_id: 'f', data: { thing1: { value: 'hi' } } };
    expect((await server.request('POST', '/1/wechatApp/SendWeAppMessage', { body: message })).body).toEqual({ msg: 'ok' });
    platform.refusedSubscribers.add('openid-h');
    expect((await server.request('POST', '/1/wechatApp/SendWeAppMessage', { body: { ...message, touser: 'openid-h' } })).body.error).toContain('43101');
    expect((await server.request('POST', '/1/wechatApp/SendWeAppMessage', { body: { ...message, data: 'x' } })).body.code).toBe(201);

    const note = { touser: 'owner-openid', template_id: 'tpl-owner', url: 'https://example.com', data: { first: { value: 'new order' } } };
    const sent = await Promise.all(Array.from({ length: 6 }, () => server.request('POST', '/1/wechatApp/notifyMsg', { body: note })));
    expect(sent.filter((r) => r.status === 200)).toHaveLength(3);
    expect(sent.filter((r) => r.body.code === 10100)).toHaveLength(3);
    clock.advance(86_400_000);
    expect((await server.request('POST', '/1/wechatApp/notifyMsg', { body: note })).status).toBe(200);
  });

  it('stores async media checks and hands the signed verdict to the cloud function once', async () => {
    const started = await server.request('POST', '/1/wechatApp/asyncCheckWechatMedia', { body: { media_url: 'https://example.com/a.png', media_type: 2, version: 2, scene: 1, openid: 'openid-m' } });
    expect(started.body).toEqual({ msg: 'ok', traceId: expect.stringMatching(/^media-trace-/) });
    const callback = `${server.url}/1/wechatApp/callback/${TEST_APP.applicationId}`;
    const timestamp = Math.floor(clock.now() / 1000);
    const forged = await platform.finishMediaCheck(started.body.traceId, 'risky', callback, 'wrong-token', { timestamp });
    expect(forged.status).toBe(400);
    const stale = await platform.finishMediaCheck(started.body.traceId, 'risky', callback, MESSAGE_TOKEN, { timestamp: timestamp - 3600 });
    expect(stale.status).toBe(400);
    const delivered = await platform.finishMediaCheck(started.body.traceId, 'risky', callback, MESSAGE_TOKEN, { timestamp, nonce: 'n-1' });
    expect(delivered).toEqual({ status: 200, text: 'success' });
    const replay = await platform.finishMediaCheck(started.body.traceId, 'risky', callback, MESSAGE_TOKEN, { timestamp, nonce: 'n-1' });
    expect(replay.status).toBe(400);
    const repeat = await platform.finishMediaCheck(started.body.traceId, 'risky', callback, MESSAGE_TOKEN, { timestamp, nonce: 'n-2' });
    expect(repeat.status).toBe(200);
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ trace_id: started.body.traceId, result: { suggest: 'risky' } });
    const rows = await server.request('GET', '/1/classes/_MediaCheck', { auth: 'master' });
    expect(rows.body.results[0]).toMatchObject({ traceId: started.body.traceId, status: 'done', verdict: { result: { suggest: 'risky' } } });
    expect((await server.request('GET', '/1/classes/_MediaCheck')).status).toBe(403);

    const echo = await fetch(`${callback}?${new URLSearchParams({ signature: callbackSignature(MESSAGE_TOKEN, String(timestamp), 'n-3'), timestamp: String(timestamp), nonce: 'n-3', echostr: 'abc123' })}`);
    expect(await echo.text()).toBe('abc123');
    expect((await fetch(`${server.url}/1/wechatApp/callback/no-such-app?signature=x`, { method: 'POST', body: '{}' })).status).toBe(400);
  });
});

describe('WeChat Pay v2: orders, notifications, refunds', () => {
  beforeAll(() => start());
  afterAll(async () => {
    await server.close();
    rmSync(fileRoot, { recursive: true, force: true });
  });

  async function paidOrder(price = 12.5): Promise<string> {
    // The order's notify_url points at this server.
    const res = await server.request('POST', '/1/pay', { body: { order_price: price, product_name: 'Tea', body: 'green tea', open_id: 'openid-p', pay_type: 4 } });
    expect(res.status).toBe(200);
    platform.orders.get(res.body.out_trade_no)!.notify_url = `${server.url}/1/pay/notify/${TEST_APP.applicationId}`;
    return res.body.out_trade_no;
  }

  it('creates an order whose wx.requestPayment fields are signed with the merchant key', async () => {
    const res = await server.request('POST', '/1/pay', { body: { order_price: 0.01, product_name: 'Tea', body: 'green tea', open_id: 'openid-p', pay_type: 4 } });
    expect(res.body).toMatchObject({ out_trade_no: expect.any(String), timestamp: expect.stringMatching(/^\d+$/), noncestr: expect.any(String), package: expect.stringMatching(/^prepay_id=wx/), signType: 'MD5' });
    const { payV2Sign } = await import('../../src/wechat/pay/pay-v2-xml.js');
    const expected = payV2Sign({ appId: platform.appId, timeStamp: res.body.timestamp, nonceStr: res.body.noncestr, package: res.body.package, signType: 'MD5' }, platform.payKey, 'MD5');
    expect(res.body.sign).toBe(expected);
    expect(platform.orders.get(res.body.out_trade_no)!.total_fee).toBe(1);
    // Placed without a session: the master key's to query (D224).
    const query = await server.request('GET', `/1/pay/${res.body.out_trade_no}`, { auth: 'master' });
    expect(query.body).toMatchObject({ trade_state: 'NOTPAY', total_fee: 1 });
  });

  it('refuses bad orders with coded errors before the platform', async () => {
    for (const [body, code] of [
      [{ product_name: 'Tea', open_id: 'o' }, 10001],
      [{ order_price: 1, open_id: 'o' }, 10001],
      [{ order_price: 1, product_name: 'Tea' }, 10001],
      [{ order_price: -1, product_name: 'Tea', open_id: 'o' }, 10003],
      [{ order_price: 0.001, product_name: 'Tea', open_id: 'o' }, 10003],
      [{ order_price: '1; DROP TABLE', product_name: 'Tea', open_id: 'o' }, 10003],
      [{ order_price: 1, product_name: 'Tea', open_id: 'o', pay_type: 1 }, 10003],
    ] as const) {
      expect((await server.request('POST', '/1/pay', { body })).body.code).toBe(code);
    }
    expect((await server.request('GET', '/1/pay/no-such-order')).body.code).toBe(10002);
  });

  it('applies a payment notification once, refuses forged and wrong-amount ones', async () => {
    const order = await paidOrder();
    const forged = await platform.notifyPayment(order, { forge: true });
    expect(forged.status).toBe(400);
    expect(forged.text).toContain('FAIL');
    const wrongAmount = await platform.notifyPayment(order, { totalFee: 1 });
    expect(wrongAmount.status).toBe(400);
    expect((await server.request('GET', `/1/pay/${order}`, { auth: 'master' })).body.trade_state).toBe('NOTPAY');

    const results = await Promise.all(Array.from({ length: 5 }, () => platform.notifyPayment(order)));
    expect(results.every((r) => r.status === 200 && r.text.includes('SUCCESS'))).toBe(true);
    const state = await server.request('GET', `/1/pay/${order}`, { auth: 'master' });
    expect(state.body).toMatchObject({ trade_state: 'SUCCESS', total_fee: 1250, transaction_id: expect.any(String) });
    const rows = await server.request('GET', '/1/classes/_Order', { auth: 'master', headers: {} });
    expect(rows.body.results.find((o: { out_trade_no: string }) => o.out_trade_no === order)).toMatchObject({ status: 'SUCCESS' });
    expect((await server.request('GET', '/1/classes/_Order')).status).toBe(403);
    const notXml = await fetch(`${server.url}/1/pay/notify/${TEST_APP.applicationId}`, { method: 'POST', body: '<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><xml><a>&e;</a></xml>' });
    expect(notXml.status).toBe(400);
  });

  it('refunds with the master key only, never above the paid amount, each refund number once', async () => {
    const order = await paidOrder(10);
    await platform.notifyPayment(order);
    expect((await server.request('POST', '/1/pay/refund', { body: { order_no: order, refund_fee: 1, desc: 'sorry' } })).body.code).toBe(11006);
    const tooMuch = await server.request('POST', '/1/pay/refund', { auth: 'master', body: { order_no: order, refund_fee: 10.01, desc: 'sorry' } });
    expect(tooMuch.body.code).toBe(10003);
    const first = await server.request('POST', '/1/pay/refund', { auth: 'master', body: { order_no: order, refund_fee: 4, desc: 'part', out_refund_no: 'R-1' } });
    expect(first.body).toMatchObject({ msg: 'ok', out_refund_no: 'R-1', refund_fee: 400, refunded_fee: 400 });
    const replay = await server.request('POST', '/1/pay/refund', { auth: 'master', body: { order_no: order, refund_fee: 4, desc: 'part', out_refund_no: 'R-1' } });
    expect(replay.body).toEqual(first.body);
    // Concurrent refunds of 3 yuan each against the 6 left: exactly two pass.
    const racing = await Promise.all(Array.from({ length: 5 }, (_, i) => server.request('POST', '/1/pay/refund', { auth: 'master', body: { order_no: order, refund_fee: 3, desc: 'race', out_refund_no: `R-race-${i}` } })));
    expect(racing.filter((r) => r.status === 200)).toHaveLength(2);
    expect(racing.filter((r) => r.body.code === 10003)).toHaveLength(3);
    expect(platform.orders.get(order)!.refunded).toBe(1000);
    expect((await server.request('GET', `/1/pay/${order}`, { auth: 'master' })).body.refunded_fee).toBe(1000);
    expect((await server.request('POST', '/1/pay/refund', { auth: 'master', body: { order_no: 'nope', refund_fee: 1, desc: 'x' } })).body.code).toBe(10002);
    expect((await server.request('POST', '/1/pay/refund', { auth: 'master', body: { order_no: order, refund_fee: 1 } })).body.code).toBe(10001);
    const unpaid = await paidOrder(1);
    expect((await server.request('POST', '/1/pay/refund', { auth: 'master', body: { order_no: unpaid, refund_fee: 1, desc: 'x' } })).body.code).toBe(10003);
  });
});

describe('WeChat Pay: an order answers to its buyer and the master key only (D224)', () => {
  // The regression: GET /1/pay/:no and POST /1/pay/refund served any caller's order to anyone who had
  // its number, and (with clientRefund) refunded it. Another caller now gets the unknown-order answer.
  beforeAll(() => start({ pay: { mchId: platform.mchId, key: platform.payKey, apiBase: platform.url, notifyUrl: 'http://placeholder/1/pay/notify/test-app', clientRefund: true } }));
  afterAll(async () => {
    await server.close();
    rmSync(fileRoot, { recursive: true, force: true });
  });
  const as = (token: string | null) => (token ? { headers: { 'X-Svc-Session-Token': token } } : {});
  async function signUp(username: string): Promise<string> {
    const res = await server.request('POST', '/1/users', { body: { username, password: `pw-${username}-1` } });
    expect(res.status).toBe(201);
    return res.body.sessionToken;
  }
  async function paidOrder(price: number, token: string | null): Promise<string> {
    const res = await server.request('POST', '/1/pay', { body: { order_price: price, product_name: 'Tea', body: 'green tea', open_id: 'openid-own', pay_type: 4 }, ...as(token) });
    expect(res.status).toBe(200);
    platform.orders.get(res.body.out_trade_no)!.notify_url = `${server.url}/1/pay/notify/${TEST_APP.applicationId}`;
    expect((await platform.notifyPayment(res.body.out_trade_no)).status).toBe(200);
    return res.body.out_trade_no;
  }
  const query = async (order: string, token: string | null) => {
    const res = await server.request('GET', `/1/pay/${order}`, as(token));
    return { status: res.status, body: res.body };
  };
  const refund = async (order: string, token: string | null, fee: number) => {
    const res = await server.request('POST', '/1/pay/refund', { body: { order_no: order, refund_fee: fee, desc: 'refund' }, ...as(token) });
    return { status: res.status, body: res.body };
  };
  const refundedFee = async (order: string) => (await server.request('GET', `/1/classes/_Order?where=${encodeURIComponent(JSON.stringify({ out_trade_no: order }))}`, { auth: 'master' })).body.results[0].refunded_fee;

  it("answers GET /1/pay/:no to the buyer and the master key; another user and the REST key alone get the unknown order's answer", async () => {
    const ann = await signUp('pay-ann');
    const bob = await signUp('pay-bob');
    const order = await paidOrder(12.5, ann);
    const own = await query(order, ann);
    expect(own).toEqual({ status: 200, body: { out_trade_no: order, trade_state: 'SUCCESS', total_fee: 1250, refunded_fee: 0, transaction_id: expect.any(String) } });
    expect((await server.request('GET', `/1/pay/${order}`, { auth: 'master' })).body).toEqual(own.body);
    const unknown = await query('no-such-order', bob);
    expect(unknown).toEqual({ status: 404, body: { code: 10002, error: expect.any(String) } });
    expect(await query(order, bob)).toEqual(unknown);
    expect(await query(order, null)).toEqual(unknown);
  });

  it("refunds (pay.clientRefund) only for the buyer and the master key; another user's refund moves nothing", async () => {
    const ann = await signUp('pay-ann-2');
    const bob = await signUp('pay-bob-2');
    const order = await paidOrder(10, ann);
    const unknown = await refund('no-such-order', bob, 10);
    expect(unknown).toEqual({ status: 404, body: { code: 10002, error: expect.any(String) } });
    expect(await refund(order, bob, 10)).toEqual(unknown);
    expect(await refund(order, null, 10)).toEqual(unknown);
    expect(platform.orders.get(order)!.refunded).toBe(0);
    expect(await refundedFee(order)).toBe(0);
    expect((await refund(order, ann, 4)).body).toMatchObject({ msg: 'ok', refund_fee: 400, refunded_fee: 400 });
    const byMaster = await server.request('POST', '/1/pay/refund', { auth: 'master', body: { order_no: order, refund_fee: 6, desc: 'rest' } });
    expect(byMaster.body).toMatchObject({ msg: 'ok', refund_fee: 600, refunded_fee: 1000 });
    expect(platform.orders.get(order)!.refunded).toBe(1000);
  });

  it('keeps an order placed without a session for the master key alone', async () => {
    const bob = await signUp('pay-bob-3');
    const order = await paidOrder(3, null);
    const unknown = await query('no-such-order', null);
    expect(await query(order, null)).toEqual(unknown);
    expect(await query(order, bob)).toEqual(unknown);
    expect((await server.request('GET', `/1/pay/${order}`, { auth: 'master' })).body).toMatchObject({ trade_state: 'SUCCESS', total_fee: 300 });
    expect(await refund(order, null, 3)).toEqual(await refund('no-such-order', null, 3));
    expect(await refund(order, bob, 3)).toEqual(await refund('no-such-order', null, 3));
    expect(platform.orders.get(order)!.refunded).toBe(0);
    const byMaster = await server.request('POST', '/1/pay/refund', { auth: 'master', body: { order_no: order, refund_fee: 3, desc: 'all' } });
    expect(byMaster.body).toMatchObject({ msg: 'ok', refunded_fee: 300 });
  });
});

describe('WeChat Pay v3 (pay.version v3)', () => {
  beforeAll(() =>
    start({
      pay: {
        version: 'v3',
        mchId: platform.mchId,
        apiBase: platform.url,
        notifyUrl: 'http://placeholder/1/pay/notify/test-app',
        apiV3Key: platform.payV3.apiV3Key,
        privateKey: platform.payV3.privateKey,
        serialNo: platform.payV3.serialNo,
        platformPublicKey: platform.payV3.platformPublicKey,
      },
    }),
  );
  afterAll(async () => {
    await server.close();
    rmSync(fileRoot, { recursive: true, force: true });
  });

  async function order(price: number): Promise<{ out_trade_no: string; appId: string; timestamp: string; noncestr: string; package: string; signType: string; sign: string }> {
    const res = await server.request('POST', '/1/pay', { body: { order_price: price, product_name: 'Tea', body: 'green tea', open_id: 'openid-v3', pay_type: 4 } });
    expect(res.status).toBe(200);
    platform.orders.get(res.body.out_trade_no)!.notify_url = `${server.url}/1/pay/notify/${TEST_APP.applicationId}`;
    return res.body;
  }

  it('places a JSAPI order whose paySign is the merchant key\'s RSA signature', async () => {
    const placed = await order(3.5);
    expect(placed).toMatchObject({ signType: 'RSA', package: expect.stringMatching(/^prepay_id=wx/), appId: platform.appId });
    const message = `${placed.appId}\n${placed.timestamp}\n${placed.noncestr}\n${placed.package}\n`;
    expect(createVerify('RSA-SHA256').update(message).verify(createPublicKey(platform.payV3.privateKey), placed.sign, 'base64')).toBe(true);
    expect(platform.orders.get(placed.out_trade_no)!.total_fee).toBe(350);
  });

  it('applies a platform-signed, encrypted notification once; refuses forged and wrong-amount ones', async () => {
    const placed = await order(12);
    const forged = await platform.notifyPaymentV3(placed.out_trade_no, { forge: true });
    expect(forged.status).toBe(400);
    expect(JSON.parse(forged.text)).toEqual({ code: 'FAIL', message: 'bad signature' });
    expect((await platform.notifyPaymentV3(placed.out_trade_no, { totalFee: 1 })).status).toBe(400);
    expect((await server.request('GET', `/1/pay/${placed.out_trade_no}`, { auth: 'master' })).body.trade_state).toBe('NOTPAY');
    const results = await Promise.all(Array.from({ length: 4 }, () => platform.notifyPaymentV3(placed.out_trade_no)));
    expect(results.map((r) => r.status)).toEqual([204, 204, 204, 204]);
    expect((await server.request('GET', `/1/pay/${placed.out_trade_no}`, { auth: 'master' })).body).toMatchObject({ trade_state: 'SUCCESS', total_fee: 1200, transaction_id: expect.any(String) });
  });

  it('refunds through /v3/refund/domestic/refunds, never above what was paid', async () => {
    const placed = await order(5);
    await platform.notifyPaymentV3(placed.out_trade_no);
    expect((await server.request('POST', '/1/pay/refund', { auth: 'master', body: { order_no: placed.out_trade_no, refund_fee: 5.01, desc: 'x' } })).body.code).toBe(10003);
    const refunded = await server.request('POST', '/1/pay/refund', { auth: 'master', body: { order_no: placed.out_trade_no, refund_fee: 2, desc: 'part', out_refund_no: 'V3-R-1' } });
    expect(refunded.body).toMatchObject({ msg: 'ok', refund_id: 'r-V3-R-1', refund_fee: 200, refunded_fee: 200 });
    expect(platform.orders.get(placed.out_trade_no)!.refunded).toBe(200);
  });

  it('refuses v3 settings that cannot work at start-up', async () => {
    const bad = { version: 'v3', mchId: 'm', notifyUrl: 'https://x/1/pay/notify/a', apiV3Key: 'short', privateKey: platform.payV3.privateKey, serialNo: 's', platformPublicKey: platform.payV3.platformPublicKey };
    const account = { appId: platform.appId, secret: platform.secret };
    await expect(startTestServer({ applications: [{ ...TEST_APP, featureSettings: { wechat: { miniProgram: account, pay: bad } } }] })).rejects.toThrow(/apiV3Key/);
    await expect(startTestServer({ applications: [{ ...TEST_APP, featureSettings: { wechat: { miniProgram: account, pay: { ...bad, apiV3Key: 'x'.repeat(32), privateKey: 'not a key' } } } }] })).rejects.toThrow(/privateKey/);
  });
});

describe('virtual payment (/1/wxvp/*)', () => {
  beforeAll(() => start());
  afterAll(async () => {
    await server.close();
    rmSync(fileRoot, { recursive: true, force: true });
  });
  const hmac = (key: string, text: string) => createHmac('sha256', key).update(text).digest('hex');
  async function loggedIn(openid: string): Promise<string> {
    const code = platform.loginCode(openid);
    return (await server.request('POST', `/1/wechatAppv1/${code}`)).body.sk;
  }

  it('signs an order for wx.requestVirtualPayment, keeps it, and marks it paid once the platform delivers', async () => {
    const sk = await loggedIn('openid-vp');
    const res = await server.request('POST', '/1/wxvp/createOrder', { body: { openid: 'openid-vp', sk, env: 0, mode: 'short_series_goods', goods_price: 100, buy_quantity: 2, product_id: 'gem-1', name: 'Gem' } });
    expect(res.status).toBe(200);
    const signData = JSON.parse(res.body.signData);
    expect(signData).toEqual({ offerId: platform.offerId, buyQuantity: 2, env: 0, currencyType: 'CNY', productId: 'gem-1', goodsPrice: 100, outTradeNo: res.body.order_id, attach: '' });
    expect(res.body.paySig).toBe(hmac(platform.virtualPayAppKey, `requestVirtualPayment&${res.body.signData}`));
    expect(res.body.signature).toBe(hmac(sk, res.body.signData));
    const callback = `${server.url}/1/wechatApp/callback/${TEST_APP.applicationId}`;
    const delivered = await platform.deliverVirtualOrder(res.body.order_id, callback, MESSAGE_TOKEN);
    expect(delivered.status).toBe(200);
    expect(JSON.parse(delivered.text)).toEqual({ ErrCode: 0, ErrMsg: 'success' });
    const rows = await server.request('GET', '/1/classes/_VirtualOrder', { auth: 'master' });
    expect(rows.body.results[0]).toMatchObject({ order_id: res.body.order_id, name: 'Gem', status: 'PAID', wx_order_id: expect.any(String) });
    expect((await server.request('GET', '/1/classes/_VirtualOrder')).status).toBe(403);
  });

  it('refuses bad orders and a session key that is not the user’s', async () => {
    const sk = await loggedIn('openid-vq');
    const base = { openid: 'openid-vq', sk, mode: 'short_series_coin', goods_price: 10 };
    expect((await server.request('POST', '/1/wxvp/createOrder', { body: { ...base, sk: Buffer.alloc(16, 7).toString('base64') } })).body.code).toBe(208);
    expect((await server.request('POST', '/1/wxvp/createOrder', { body: { ...base, mode: undefined } })).body.code).toBe(10001);
    expect((await server.request('POST', '/1/wxvp/createOrder', { body: { ...base, mode: 'short_series_goods' } })).body.code).toBe(10001);
    expect((await server.request('POST', '/1/wxvp/createOrder', { body: { ...base, goods_price: 0 } })).body.code).toBe(10003);
    expect((await server.request('POST', '/1/wxvp/createOrder', { body: { ...base, env: 2 } })).body.code).toBe(10003);
    expect((await server.request('POST', '/1/wxvp/createOrder', { body: { ...base, openid: undefined } })).body.code).toBe(10001);
    expect((await server.request('POST', '/1/wxvp/createOrder', { body: base })).status).toBe(200);
  });

  it('reads balances, pays with coins, queries and cancels, signed per environment', async () => {
    const sk = await loggedIn('openid-coin');
    platform.balances.set('openid-coin', 50);
    const who = { openid: 'openid-coin', sk };
    expect((await server.request('POST', '/1/wxvp/queryUserBalance', { body: { ...who, env: 0 } })).body).toMatchObject({ errcode: 0, balance: 50 });
    expect((await server.request('POST', '/1/wxvp/queryUserBalance', { body: { ...who, env: 1 } })).body).toMatchObject({ errcode: 0, balance: 50 });
    const paid = await server.request('POST', '/1/wxvp/currencyPay', { body: { ...who, env: 0, amount: 20, order_id: 'coinorder01', payitem: '[{"productid":"gem","unit_price":20,"quantity":1}]' } });
    expect(paid.body).toMatchObject({ errcode: 0, balance: 30, order_id: 'coinorder01' });
    expect((await server.request('POST', '/1/wxvp/currencyPay', { body: { ...who, amount: 20, order_id: 'coinorder01' } })).body.error).toContain('268490010');
    expect((await server.request('POST', '/1/wxvp/currencyPay', { body: { ...who, amount: 100, order_id: 'coinorder02' } })).body.error).toContain('268490004');
    expect((await server.request('POST', '/1/wxvp/currencyPay', { body: { ...who, amount: 1, order_id: "x' OR 1=1" } })).body.code).toBe(10003);
    expect((await server.request('POST', '/1/wxvp/queryOrder', { body: { openid: 'openid-coin', env: 0, order_id: 'coinorder01' } })).body.order).toMatchObject({ order_id: 'coinorder01', order_fee: 20 });
    expect((await server.request('POST', '/1/wxvp/queryOrder', { body: { openid: 'openid-coin', env: 0 } })).body.code).toBe(10001);
    const cancelled = await server.request('POST', '/1/wxvp/cancelCurrencyPay', { body: { ...who, env: 0, pay_order_id: 'coinorder01', order_id: 'refund0001', amount: 5 } });
    expect(cancelled.body).toMatchObject({ errcode: 0, order_id: 'refund0001' });
    expect(platform.balances.get('openid-coin')).toBe(35);
  });

  it("fix 39.4: serves the SDK's own wxvpCancelCurrencyPay, which posts to / and signs 'NaN' for its route and time", async () => {
    const sk = await loggedIn('openid-sdk');
    platform.balances.set('openid-sdk', 40);
    expect((await server.request('POST', '/1/wxvp/currencyPay', { body: { openid: 'openid-sdk', sk, env: 0, amount: 10, order_id: 'sdkorder01' } })).body).toMatchObject({ errcode: 0, balance: 30 });
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const Bmob: any = createRequire(import.meta.url)('hydrogen-js-sdk');
    Bmob.initialize(TEST_APP.secretKey, TEST_APP.securityCode);
    Bmob.domain(server.url);
    const cancelled = await Bmob.Pay.wxvpCancelCurrencyPay({ openid: 'openid-sdk', sk, env: 0, pay_order_id: 'sdkorder01', order_id: 'sdkrefund01', amount: 4 });
    expect(cancelled).toMatchObject({ errcode: 0, order_id: 'sdkrefund01' });
    expect(platform.balances.get('openid-sdk')).toBe(34);
    // Other bodies at / find no route (11001); the REST key may use it too.
    const posted = (body: unknown) => server.request('POST', '/', { body });
    expect((await posted({ openid: 'openid-sdk', sk, amount: 1 })).body.code).toBe(11001);
    expect((await posted({ openid: 'openid-sdk', sk, env: 0, pay_order_id: 'sdkorder01', order_id: 'sdkrefund02', amount: 1 })).body).toMatchObject({ errcode: 0, order_id: 'sdkrefund02' });
    // What the SDK signs: 'NaN' (undefined + its timestamp), the security code, the nonce, the body, the version.
    const signedPost = (path: string, body: object, nonce: string, t = String(Math.floor(Date.now() / 1000))) => {
      const text = JSON.stringify(body);
      const sign = createHash('md5').update(`NaN${TEST_APP.securityCode}${nonce}${text}10`).digest('hex');
      const headers = { 'content-type': 'application/json', 'X-Bmob-Secret-Key': TEST_APP.secretKey!, 'X-Bmob-Safe-Timestamp': t, 'X-Bmob-Noncestr-Key': nonce, 'X-Bmob-Safe-Sign': sign, 'X-Bmob-SDK-Version': '10' };
      return fetch(`${server.url}${path}`, { method: 'POST', headers, body: text });
    };
    const refund = { openid: 'openid-sdk', sk, env: 0, pay_order_id: 'sdkorder01', order_id: 'sdkrefund03', amount: 1 };
    expect((await signedPost('/', refund, 'nonce-once-00001')).status).toBe(200);
    // The timestamp is not signed: the same signature with another timestamp is a replay.
    expect((await signedPost('/', refund, 'nonce-once-00001', String(Math.floor(Date.now() / 1000) - 3))).status).toBe(401);
    // That form is accepted at / only: elsewhere the signature must cover the path and timestamp.
    expect((await signedPost('/1/wxvp/queryUserBalance', { openid: 'openid-sdk', sk, env: 0 }, 'nonce-elsewhere1')).status).toBe(401);
    expect(platform.balances.get('openid-sdk')).toBe(36);
  });
});

describe('without platform settings', () => {
  it('answers 11205 on every mini-program route', async () => {
    const bare = await startTestServer();
    try {
      for (const [method, path, body] of [
        ['POST', '/1/wechatAppv1/abc', {}],
        ['POST', '/1/wechatApp/checkMsg', { content: 'hi' }],
        ['POST', '/1/wechatApp/checkSessionKey', { openid: 'o', sk: 'k' }],
        ['POST', '/1/wechatApp/notifyMsg', { touser: 'o', template_id: 't', url: 'https://x', data: {} }],
        ['POST', '/1/pay', { order_price: 1, product_name: 'x', open_id: 'o' }],
        ['POST', '/1/wxvp/queryUserBalance', { openid: 'o', sk: 'k' }],
      ] as const) {
        const res = await bare.request(method, path, { body });
        expect(res.body.code, path).toBe(11205);
      }
      expect((await bare.request('GET', '/1/wechatApp/getAccessToken', { auth: 'master' })).body.code).toBe(11205);
      expect((await bare.request('POST', '/1/usersv1', { body: { authData: { weapp: { openid: 'o', sk: 'k' } } } })).body.code).toBe(11205);
    } finally {
      await bare.close();
    }
  });
});
