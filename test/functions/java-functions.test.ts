import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findJavaToolchain } from '../../src/functions/java/java-toolchain.js';
import { TEST_APP, type TestServer, startTestServer } from '../helpers/server.js';
import { manualTimer } from './manual-timer.js';

const SECRET = TEST_APP.secretKey!;
const ENTRY = 'public static void onRequest(final Request request, final Response response, final Modules modules) throws Throwable';
const fn = (body: string) => `${ENTRY} {\n${body}\n}`;

/** Java cloud functions over real HTTP: deployed through /1/cloudCode, compiled by javac, run in a JVM worker per application. */
describe.skipIf(!findJavaToolchain())('Java cloud functions', () => {
  let server: TestServer;
  let upstream: ReturnType<typeof createServer>;
  let upstreamUrl = '';
  const cacheDir = mkdtempSync(join(tmpdir(), 'svc-java-test-'));
  const timer = manualTimer();
  const master = (method: string, path: string, body?: unknown) => server.request(method, path, { body, auth: 'master' });
  const deploy = (name: string, source: string) => master('PUT', `/1/cloudCode/${name}`, { language: 'java', source });
  const call = (name: string, body: unknown = {}) => server.request('POST', `/1/functions/${name}`, { body });

  beforeAll(async () => {
    upstream = createServer((req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ path: req.url, method: req.method })));
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    server = await startTestServer({
      captcha: false,
      functions: { timer, limits: { suspendAfter: 3 }, http: { allowHosts: ['127.0.0.1'] }, java: { cacheDir, heapMb: 64 } },
    });
  }, 60_000);
  afterAll(async () => {
    await server.close();
    await new Promise((resolve) => upstream.close(resolve));
    rmSync(cacheDir, { recursive: true, force: true });
  });

  it('deploys a function and runs it over REST and plain HTTP', async () => {
    const saved = await deploy('hello', fn('  String name = request.getParams().optString("name", request.getQueryParam("name"));\n  response.send("hello " + name + " via " + request.getMethod());'));
    expect(saved.status).toBe(200);
    expect(saved.body).toEqual({ name: 'hello', language: 'java', updatedAt: expect.any(String) });
    expect((await call('hello', { name: 'rest' })).body).toEqual({ result: 'hello rest via POST' });
    const plain = await fetch(`${server.url}/${SECRET}/hello?name=plain`);
    expect([plain.status, plain.headers.get('content-type'), await plain.text()]).toEqual([200, 'text/plain; charset=utf-8', 'hello plain via GET']);
    expect((await master('GET', '/1/cloudCode/hello')).body).toMatchObject({ language: 'java', source: expect.stringContaining('hello ') });
  }, 60_000);
});
