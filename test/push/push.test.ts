import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApplicationConfig } from '../../src/app/application.js';
import { fcmTransport, webPushTransport } from '../../src/push/index.js';
import { TEST_APP, type TestServer, startTestServer } from '../helpers/server.js';
import { type FakePushServices, startFakePushServices } from './fake-push-services.js';

/** Installations and `POST /1/push` over real HTTP, delivered to local fakes of Web Push and FCM. */
describe('push notifications', () => {
  let fake: FakePushServices;
  let server: TestServer;
  const CLIENT_APP: ApplicationConfig = { applicationId: 'client-push', restApiKey: 'client-rest', masterKey: 'client-master', secretKey: 'client-secret-k1', featureSettings: { push: { clientPush: true } } };
  const master = (method: string, path: string, body?: unknown) => server.request(method, path, { body, auth: 'master' });
  const push = () => server.service.registry.push!;

  beforeAll(async () => {
    fake = await startFakePushServices();
    server = await startTestServer({
      captcha: false,
      applications: [TEST_APP, CLIENT_APP],
      push: {
        webPush: webPushTransport({ vapid: fake.vapid, endpointHosts: ['127.0.0.1'] }),
        fcm: fcmTransport({ serviceAccount: fake.serviceAccount, apiBaseUrl: fake.url }),
        concurrency: 8,
      },
    });
  });
  afterAll(async () => {
    await server.close();
    await fake.close();
  });

  it('registers installations with their checks; only the master key lists them', async () => {
    const web = await server.request('POST', '/1/installations', { body: { deviceType: 'web', subscription: fake.subscribe(), channels: ['news'] } });
    expect(web.status).toBe(201);
    expect(web.headers.get('location')).toMatch(/\/1\/installations\//);
    const android = await server.request('POST', '/1/installations', { body: { deviceType: 'android', deviceToken: fake.fcmToken() } });
    expect(android.status).toBe(201);
    const bad: Array<[unknown, number]> = [
      [{ deviceType: 'fax', deviceToken: 'abcdefgh' }, 131],
      [{ deviceType: 'web' }, 131],
      [{ deviceType: 'web', subscription: { endpoint: 'ftp://x', keys: { p256dh: 'a'.repeat(20), auth: 'b'.repeat(20) } } }, 131],
      [{ deviceType: 'web', subscription: { endpoint: 'https://push.example/x', keys: { p256dh: "x'; DROP", auth: 'b'.repeat(20) } } }, 131],
      [{ deviceType: 'ios' }, 131],
      [{ deviceType: 'ios', deviceToken: 'abcdefgh', channels: ['ok', 'not ok'] }, 131],
      [{ deviceType: 'ios', deviceToken: 'abcdefgh', channels: 'news' }, 131],
    ];
    for (const [body, code] of bad) expect([body, (await server.request('POST', '/1/installations', { body })).body.code]).toEqual([body, code]);
    expect((await server.request('GET', '/1/installations')).body.code).toBe(11006);
    expect((await master('GET', '/1/installations?count=1&limit=0')).body.count).toBe(2);
    // A device reads and updates its own installation by id.
    const id = android.body.objectId as string;
    expect((await server.request('GET', `/1/installations/${id}`)).body.deviceType).toBe('android');
    expect((await server.request('PUT', `/1/installations/${id}`, { body: { channels: { __op: 'AddUnique', objects: ['sports'] } } })).status).toBe(200);
    expect((await server.request('PUT', `/1/installations/${id}`, { body: { deviceType: 'fax' } })).body.code).toBe(131);
    expect((await server.request('GET', `/1/installations/${id}`)).body.channels).toEqual(['sports']);
    // Installations are not batchable.
    const batch = await server.request('POST', '/1/batch', { body: { requests: [{ method: 'POST', path: '/1/classes/_Installation', body: { deviceType: 'ios', deviceToken: 'abcdefgh' } }] } });
    expect(batch.body.code).toBe(11071);
    for (const r of (await master('GET', '/1/installations')).body.results) await master('DELETE', `/1/installations/${r.objectId}`);
  });

  it('refuses pushes without the master key (unless the application allows client push), data or a valid target', async () => {
    expect((await server.request('POST', '/1/push', { body: { data: { alert: 'x' } } })).body.code).toBe(11006);
    const cases: Array<[unknown, number]> = [
      [{}, 141],
      [{ data: 'text' }, 141],
      [{ data: {} }, 141],
      [{ data: { alert: 'x' }, channels: [] }, 11198],
      [{ data: { alert: 'x' }, channels: ["a'b"] }, 11198],
      [{ data: { alert: 'x' }, where: 'all' }, 11198],
      [{ data: { alert: 'x'.repeat(5000) } }, 11198],
      [{ data: { alert: 'x' }, where: { deviceType: { $bogus: 1 } } }, 102],
      [{ data: { alert: 'x' }, surprise: 1 }, 11198],
    ];
    for (const [body, code] of cases) expect([body, (await master('POST', '/1/push', body)).body.code]).toEqual([body, code]);
    const client = await server.request('POST', '/1/push', { body: { data: { alert: 'x' } }, headers: { 'X-Svc-Application-Id': CLIENT_APP.applicationId, 'X-Svc-REST-API-Key': CLIENT_APP.restApiKey } });
    expect(client.body).toEqual({ result: true, pushStatusId: expect.any(String) });
    await push().idle();
  });

  it('pushes to 1,000 installations in bounded batches; gone tokens are cleaned up; the status counts them', async () => {
    const bodies: unknown[] = [];
    for (let i = 0; i < 600; i++) bodies.push({ deviceType: 'web', subscription: fake.subscribe({ gone: i === 17 }), channels: i % 2 === 0 ? ['news'] : ['sports'] });
    for (let i = 0; i < 400; i++) bodies.push({ deviceType: i % 2 ? 'ios' : 'android', deviceToken: fake.fcmToken({ gone: i === 3 }), channels: ['news'] });
    for (let at = 0; at < bodies.length; at += 50) {
      const created = await Promise.all(bodies.slice(at, at + 50).map((body) => server.request('POST', '/1/installations', { body })));
      expect(created.every((r) => r.status === 201)).toBe(true);
    }
    fake.delivered.length = 0;
    const data = { alert: 'Sale starts now', badge: 1, link: { path: '/sale' } };
    const reply = await master('POST', '/1/push', { data });
    expect(reply.body).toEqual({ result: true, pushStatusId: expect.any(String) });
    await push().idle();
    expect(fake.refused).toEqual([]);
    expect(fake.delivered).toHaveLength(998);
    expect(fake.delivered.filter((d) => d.via === 'web').every((d) => JSON.stringify(d.data) === JSON.stringify(data))).toBe(true);
    expect(fake.delivered.filter((d) => d.via === 'fcm')[0]!.data).toEqual({ alert: 'Sale starts now', badge: '1', link: '{"path":"/sale"}' });
    expect(fake.maxInFlight()).toBeGreaterThan(1);
    expect(fake.maxInFlight()).toBeLessThanOrEqual(8);
    expect(fake.tokenExchanges()).toBe(1);
    const status = (await master('GET', `/1/classes/_PushStatus/${reply.body.pushStatusId}`)).body;
    expect(status).toMatchObject({ status: 'succeeded', audience: 1000, numSent: 998, numInvalid: 2, numFailed: 0, data });
    expect((await master('GET', '/1/installations?count=1&limit=0')).body.count).toBe(998);
    // The status is the master key's only.
    expect((await server.request('GET', `/1/classes/_PushStatus/${reply.body.pushStatusId}`)).body.code).toBe(11006);
  }, 60_000);

  it('targets channels and where', async () => {
    fake.delivered.length = 0;
    const news = await master('POST', '/1/push', { data: { alert: 'news' }, channels: ['news'] });
    await push().idle();
    expect(fake.delivered).toHaveLength(300 + 399);
    fake.delivered.length = 0;
    const androids = await master('POST', '/1/push', { data: { alert: 'android' }, where: { deviceType: 'android' }, channels: ['news', 'sports'] });
    await push().idle();
    expect(fake.delivered.every((d) => d.via === 'fcm')).toBe(true);
    expect(fake.delivered).toHaveLength(200);
    for (const id of [news.body.pushStatusId, androids.body.pushStatusId]) expect((await master('GET', `/1/classes/_PushStatus/${id}`)).body.status).toBe('succeeded');
  });

  it('a subscription pointing elsewhere than a push service is never called, and is dropped', async () => {
    const transport = webPushTransport({ vapid: fake.vapid });
    const keys = fake.subscribe().keys;
    for (const endpoint of ['http://127.0.0.1:1/internal', 'https://169.254.169.254/latest', 'http://fcm.googleapis.com/fcm/send/x', 'https://evil-fcm.googleapis.com.example/x']) {
      expect(await transport.send({ kind: 'web', subscription: { endpoint, keys } }, { alert: 'x' })).toMatchObject({ outcome: 'invalid' });
    }
    expect(fake.refused).toEqual([]);
  });

  it('without a transport, /1/push answers 11199; installations still register', async () => {
    const bare = await startTestServer({ captcha: false });
    try {
      expect((await bare.request('POST', '/1/push', { body: { data: { alert: 'x' } }, auth: 'master' })).body.code).toBe(11199);
      expect((await bare.request('POST', '/1/installations', { body: { deviceType: 'android', deviceToken: 'abcdefgh1' } })).status).toBe(201);
    } finally {
      await bare.close();
    }
  });
});
