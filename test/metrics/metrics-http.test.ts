import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import { memorySmsTransport } from '../../src/sms/memory-transport.js';
import { TEST_APP } from '../helpers/server.js';
import { type RealtimeServer, jsonClient, manualTicker, rtHeaders, startRealtimeServer, subscribe } from '../realtime/harness.js';
import { parseStrictly, sampleOf } from './prometheus-strict.js';

const TOKEN = 'scrape-token-0123456789';
const OTHER = { ...TEST_APP, applicationId: 'other-app', restApiKey: 'other-rest', masterKey: 'other-master', secretKey: 'other-secret-key', securityCode: 'other-code' };
let server: RealtimeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start() {
  const clock = new FakeClock(Date.UTC(2026, 4, 1));
  const ticker = manualTicker();
  server = await startRealtimeServer({
    clock,
    applications: [{ ...TEST_APP, settings: { features: { realtime: true }, sms: { quota: 50 } } }, OTHER],
    metrics: { token: TOKEN, ticker },
    sms: { transport: memorySmsTransport() },
    functions: {
      definitions: {
        hello: (request, response) => response.send(`hi ${String(request.body['name'])}`),
        boom: () => {
          throw new Error('boom');
        },
      },
    },
  });
  return { clock, ticker, s: server };
}

const scrape = async (url: string, headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` }) => {
  const response = await fetch(`${url}/metrics`, { headers });
  return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
};

describe('metrics (/metrics, /1/metrics, /1/logs/access)', () => {
  it('counts requests, functions, SMS, realtime and tables, and /metrics parses as the Prometheus text format', async () => {
    const { s, ticker, clock } = await start();
    for (let i = 0; i < 3; i++) expect((await s.request('POST', '/1/classes/Post', { body: { title: `p${i}` } })).status).toBe(201);
    expect((await s.request('GET', '/1/classes/Post/nope')).status).toBe(404);
    expect((await s.request('POST', '/1/functions/hello', { body: { name: 'ann' } })).body).toEqual({ result: 'hi ann' });
    expect((await s.request('POST', '/1/functions/boom', { body: {} })).status).toBe(424);
    expect((await s.request('POST', '/1/requestSmsCode', { body: { mobilePhoneNumber: '13800138000' } })).status).toBe(200);
    const client = await jsonClient(s, rtHeaders());
    await subscribe(client, { id: 'posts', action: 'updateTable', tableName: 'Post' });
    expect((await s.request('POST', '/1/classes/Post', { body: { title: 'live' } })).status).toBe(201);
    expect(JSON.parse(await client.next())).toMatchObject({ op: 'event', id: 'posts' });
    // A request of another application, and one that authenticates as none.
    expect((await s.request('GET', '/1/classes/Post', { headers: { 'X-Svc-Application-Id': OTHER.applicationId, 'X-Svc-REST-API-Key': OTHER.restApiKey } })).status).toBe(200);
    expect((await s.request('GET', '/1/classes/Post', { auth: false })).status).toBe(401);

    const scraped = await scrape(s.url);
    expect(scraped.status).toBe(200);
    expect(scraped.type).toBe('text/plain; version=0.0.4; charset=utf-8');
    const families = parseStrictly(scraped.text);
    const app = TEST_APP.applicationId;
    expect(sampleOf(families, 'svcbase_http_requests_total', { app, group: 'data', code: '2xx' })).toBe(4);
    expect(sampleOf(families, 'svcbase_http_requests_total', { app, group: 'data', code: '4xx' })).toBe(1);
    expect(sampleOf(families, 'svcbase_http_requests_total', { app, group: 'functions', code: '4xx' })).toBe(1);
    expect(sampleOf(families, 'svcbase_http_requests_total', { app: OTHER.applicationId, group: 'data', code: '2xx' })).toBe(1);
    expect(sampleOf(families, 'svcbase_http_requests_total', { app: '', group: 'data', code: '4xx' })).toBe(1);
    expect(sampleOf(families, 'svcbase_http_request_duration_seconds', { app, group: 'data' })).toBe(5);
    expect(sampleOf(families, 'svcbase_function_calls_total', { app, function: 'hello', outcome: 'ok' })).toBe(1);
    expect(sampleOf(families, 'svcbase_function_calls_total', { app, function: 'boom', outcome: 'error' })).toBe(1);
    expect(sampleOf(families, 'svcbase_function_duration_seconds', { app, function: 'hello' })).toBe(1);
    expect(sampleOf(families, 'svcbase_sms_total', { app, outcome: 'sent' })).toBe(1);
    expect(sampleOf(families, 'svcbase_sms_quota_used', { app })).toBe(1);
    expect(sampleOf(families, 'svcbase_sms_quota_limit', { app })).toBe(50);
    expect(sampleOf(families, 'svcbase_realtime_connections', { app })).toBe(1);
    expect(sampleOf(families, 'svcbase_realtime_events_total', { app })).toBe(1);
    expect(sampleOf(families, 'svcbase_table_rows', { app, table: 'Post' })).toBe(4);
    expect(families.families.find((f) => f.name === 'svcbase_http_request_duration_seconds')?.type).toBe('HISTOGRAM');

    // The console's history counts the same requests: an interval sampled, then the one running now.
    ticker.tick();
    clock.advance(10_000);
    expect((await s.request('GET', '/1/classes/Post')).status).toBe(200);
    const history = await s.request('GET', '/1/metrics', { auth: 'master' });
    expect(history.status).toBe(200);
    const samples = history.body.samples as Array<{ requests: Record<string, { count: number; errors: number; p50: number; p99: number }>; functions: Record<string, { calls: number; errors: number }>; sms: Record<string, { sent: number }>; realtime: { events: number; connections: number }; t: number; ms: number }>;
    expect(samples).toHaveLength(2);
    const [first, live] = samples as [(typeof samples)[0], (typeof samples)[0]];
    expect(first.requests['data']).toMatchObject({ count: 5, errors: 1 });
    expect(first.requests['data']!.p99).toBeGreaterThanOrEqual(first.requests['data']!.p50);
    expect(first.functions).toMatchObject({ hello: { calls: 1, errors: 0 }, boom: { calls: 1, errors: 1 } });
    expect(Object.values(first.sms)[0]).toMatchObject({ sent: 1 });
    expect(first.realtime).toEqual({ events: 1, connections: 1 });
    // The scrape itself was no request of the application: only this one, up to now.
    expect(live.requests['data']).toMatchObject({ count: 1, errors: 0 });
    expect(live.ms).toBe(10_000);
    expect(history.body.gauges.svcbase_table_rows).toEqual([{ labels: { table: 'Post' }, value: 4 }]);
    client.ws.close();
  });

  it('keeps /metrics to its token and each application to its own series', async () => {
    const { s } = await start();
    expect((await s.request('GET', '/1/classes/Post', { headers: { 'X-Svc-Application-Id': OTHER.applicationId, 'X-Svc-REST-API-Key': OTHER.restApiKey } })).status).toBe(200);
    for (const headers of [{}, { authorization: 'Bearer wrong-token-0123456789' }, { authorization: TOKEN }, { 'X-Svc-Master-Key': TEST_APP.masterKey }] as Array<Record<string, string>>) {
      const refused = await scrape(s.url, headers);
      expect([refused.status, refused.text]).toEqual([401, '{"error":"unauthorized"}']);
    }
    // An application's master key reads its own series only, in either form.
    const own = await s.request('GET', '/1/metrics?format=prometheus', { auth: 'master' });
    expect(own.status).toBe(200);
    const families = parseStrictly(own.text);
    expect(new Set(families.samples.map((sample) => sample.labels['app']))).toEqual(new Set([TEST_APP.applicationId]));
    expect((await s.request('GET', '/1/metrics')).status).toBe(403);
    expect((await s.request('GET', '/1/metrics?format=xml', { auth: 'master' })).body.code).toBe(11005);
  });

  it('tails the access log while it is read, and stops copying a minute after the last read', async () => {
    const { s, clock } = await start();
    await s.request('GET', '/1/classes/Post');
    const first = await s.request('GET', '/1/logs/access', { auth: 'master' });
    // Nothing was kept before anyone read.
    expect(first.body.results).toEqual([]);
    await s.request('GET', '/1/classes/Post?where=%7B%7D');
    await s.request('GET', '/1/functions/hello');
    const tail = (await s.request('GET', '/1/logs/access?after=0', { auth: 'master' })).body.results as Array<{ seq: number; method: string; path: string; status: number; at: string }>;
    // The console's own reads of the tail and the metrics are left out of it.
    expect(tail.map((line) => `${line.method} ${line.path} ${line.status}`)).toEqual(['GET /1/classes/Post 200', 'GET /1/functions/hello 200']);
    expect(tail[0]!.at).toBe('2026-05-01 00:00:00');
    const after = tail.at(-1)!.seq;
    expect((await s.request('GET', `/1/logs/access?after=${after}`, { auth: 'master' })).body.results).toEqual([]);
    clock.advance(61_000);
    await s.request('GET', '/1/classes/Post');
    // The request after the minute was not copied; the next read starts a new tail.
    expect((await s.request('GET', `/1/logs/access?after=${after}`, { auth: 'master' })).body.results).toEqual([]);
    await s.request('GET', '/1/classes/Post?limit=1');
    const later = (await s.request('GET', `/1/logs/access?after=${after}`, { auth: 'master' })).body.results as Array<{ path: string; at: string }>;
    expect(later.map((line) => [line.path, line.at])).toEqual([['/1/classes/Post', '2026-05-01 00:01:01']]);
  });
});

describe('metrics switched off', () => {
  it('serves no metrics route when neither the console nor metrics are on', async () => {
    server = await startRealtimeServer({});
    expect((await server.request('GET', '/1/metrics', { auth: 'master' })).status).toBe(404);
    expect((await fetch(`${server.url}/metrics`)).status).toBe(404);
    expect(server.service.context.metrics?.enabled).toBe(false);
  });
});
