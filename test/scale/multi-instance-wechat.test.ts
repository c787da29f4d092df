import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeWechatPlatform, startFakeWechatPlatform } from '../../src/testing/fake-wechat-platform.js';
import { connectTestRedis, deleteKeys } from '../redis/redis-env.js';
import { type Cluster, startCluster, storageUnavailable } from './harness.js';
import { SCALE_APP } from './scale-app.js';

// Issue 20 across instances: two service processes on one PostgreSQL schema and one Redis, against one
// fake platform. Tokens, session keys, payment claims, refund reservations and message caps are shared.
const redis = await connectTestRedis('scale-wechat');
const unavailable = await storageUnavailable('postgres');
if (unavailable && process.env.CI === 'true') throw new Error(`[scale-wechat] ${unavailable}; CI needs it`);

const HEADERS = { 'X-Svc-Application-Id': SCALE_APP.applicationId, 'X-Svc-REST-API-Key': SCALE_APP.restApiKey };
const MASTER = { ...HEADERS, 'X-Svc-Master-Key': SCALE_APP.masterKey };

describe.skipIf(!redis || unavailable !== null)('mini-program platform over two processes on PostgreSQL + Redis', () => {
  let platform: FakeWechatPlatform;
  let cluster: Cluster;
  beforeAll(async () => {
    platform = await startFakeWechatPlatform();
    const account = { appId: platform.appId, secret: platform.secret, apiBase: platform.url };
    cluster = await startCluster('postgres', {
      wechat: {
        miniProgram: account,
        officialAccount: account,
        notifyMsgPerDay: 3,
        pay: { mchId: platform.mchId, key: platform.payKey, apiBase: platform.url, notifyUrl: 'http://placeholder/1/pay/notify/scale-app' },
      },
    });
  }, 60_000);
  afterAll(async () => {
    await cluster?.stop();
    if (cluster) await deleteKeys(redis!, cluster.redisPrefix);
    await redis!.quit();
    await platform?.close();
  });

  const on = (i: number) => cluster.instances[i % 2]!.url;
  async function call(i: number, method: string, path: string, body?: unknown, headers: Record<string, string> = HEADERS) {
    const res = await fetch(on(i) + path, { method, headers: { ...headers, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as any };
  }

  it('shares one access token: the second instance asks the platform for none', async () => {
    expect((await call(0, 'GET', '/1/wechatApp/getAccessToken', undefined, MASTER)).status).toBe(200);
    const before = platform.calls.filter((c) => c.path === '/cgi-bin/stable_token').length;
    const replies = await Promise.all(Array.from({ length: 20 }, (_, i) => call(i, 'GET', '/1/wechatApp/getAccessToken', undefined, MASTER)));
    expect(new Set(replies.map((r) => r.body.access_token)).size).toBe(1);
    expect(platform.calls.filter((c) => c.path === '/cgi-bin/stable_token').length).toBe(before);
  }, 30_000);

  it('makes one user of racing first logins spread over both instances, with the session key one instance saw', async () => {
    const code = platform.loginCode('openid-scale');
    const weapp = (await call(0, 'POST', `/1/wechatAppv1/${code}`)).body;
    const replies = await Promise.all(Array.from({ length: 20 }, (_, i) => call(i, 'POST', '/1/usersv1', { authData: { weapp } })));
    expect(new Set(replies.map((r) => r.body.objectId)).size).toBe(1);
    expect(replies.filter((r) => r.status === 201)).toHaveLength(1);
    // The ledger is in Redis: instance B never called checksession for this key.
    expect(platform.calls.filter((c) => c.path === '/wxa/checksession')).toHaveLength(0);
  }, 30_000);

  it('applies a payment notification delivered to both instances once, and never refunds past what was paid', async () => {
    const placed = await call(0, 'POST', '/1/pay', { order_price: 10, product_name: 'Tea', open_id: 'openid-scale', pay_type: 4 });
    const order = placed.body.out_trade_no as string;
    const notices = await Promise.all(Array.from({ length: 10 }, (_, i) => platform.notifyPayment(order, { to: `${on(i)}/1/pay/notify/${SCALE_APP.applicationId}` })));
    expect(notices.every((n) => n.status === 200 && n.text.includes('SUCCESS'))).toBe(true);
    expect((await call(1, 'GET', `/1/pay/${order}`, undefined, MASTER)).body).toMatchObject({ trade_state: 'SUCCESS', total_fee: 1000 });
    const refunds = await Promise.all(Array.from({ length: 10 }, (_, i) => call(i, 'POST', '/1/pay/refund', { order_no: order, refund_fee: 3, desc: 'race', out_refund_no: `S-${i}` }, MASTER)));
    expect(refunds.filter((r) => r.status === 200)).toHaveLength(3);
    expect(refunds.filter((r) => r.body.code === 10003)).toHaveLength(7);
    expect(platform.orders.get(order)!.refunded).toBe(900);
    expect((await call(0, 'GET', `/1/pay/${order}`, undefined, MASTER)).body.refunded_fee).toBe(900);
  }, 30_000);

  it('caps owner notifications per day across both instances', async () => {
    const note = { touser: 'owner', template_id: 't', url: 'https://example.com', data: { a: { value: 'b' } } };
    const replies = await Promise.all(Array.from({ length: 12 }, (_, i) => call(i, 'POST', '/1/wechatApp/notifyMsg', note)));
    expect(replies.filter((r) => r.status === 200)).toHaveLength(3);
    expect(replies.filter((r) => r.body.code === 10100)).toHaveLength(9);
  }, 30_000);
});
