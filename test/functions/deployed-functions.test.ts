import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { TEST_APP, type TestServer, startTestServer } from '../helpers/server.js';
import { manualTimer } from './manual-timer.js';
import { isolatedVmAvailable } from '../../src/functions/sandbox/isolated-vm-runtime.js';


const SECRET = TEST_APP.secretKey!;

/**
 * The inline runtimes every deployed function's test runs against: QuickJS (the default) and, where
 * it is installed, isolated-vm; what neither runs at once goes to the QuickJS workers.
 */
const INLINE_RUNTIMES: ReadonlyArray<true | 'isolated-vm'> = [true, ...(isolatedVmAvailable() ? (['isolated-vm'] as const) : [])];

/** Functions deployed as source through `/1/cloudCode`, run in QuickJS on worker threads, over real HTTP. */
describe.each(INLINE_RUNTIMES)('deployed cloud functions (deployed.inline: %s)', (inline) => {
  let server: TestServer;
  let upstream: ReturnType<typeof createServer>;
  let upstreamUrl = '';
  const timer = manualTimer();
  const master = (method: string, path: string, body?: unknown) => server.request(method, path, { body, auth: 'master' });
  const deploy = (name: string, source: string) => master('PUT', `/1/cloudCode/${name}`, { language: 'node', source });
  const call = (name: string, body: unknown = {}) => server.request('POST', `/1/functions/${name}`, { body });

  beforeAll(async () => {
    upstream = createServer((req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ path: req.url })));
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    server = await startTestServer({
      captcha: false,
      brands: ['Svc', 'Bmob'],
      functions: {
        definitions: { hostDouble: (request, response) => response.send(Number(request.body['n']) * 2) },
        timer,
        limits: { suspendAfter: 2 },
        http: { allowHosts: ['127.0.0.1'] },
        deployed: { inline, sandbox: { memoryBytes: 8 * 1024 * 1024, cpuTicks: 2000 } },
      },
    });
  });
  afterAll(async () => {
    await server.close();
    await new Promise((resolve) => upstream.close(resolve));
  });

  it('deploys a source and runs it over REST and plain HTTP, in both function forms', async () => {
    const saved = await deploy('hello', 'function onRequest(request, response, modules) {\n  response.send("hello " + (request.body.name || request.query.name));\n}');
    expect(saved.status).toBe(200);
    expect(saved.body).toEqual({ name: 'hello', language: 'node', updatedAt: expect.any(String) });
    expect((await call('hello', { name: 'rest' })).body).toEqual({ result: 'hello rest' });
    expect(await (await fetch(`${server.url}/${SECRET}/hello?name=plain`)).text()).toBe('hello plain');
    await deploy('created', 'exports.onRequest = function (request, response) { response.setHeader("X-Made", "yes"); response.status(201).send({ ok: true }); };');
    const plain = await fetch(`${server.url}/${SECRET}/created`);
    expect([plain.status, plain.headers.get('x-made'), await plain.json()]).toEqual([201, 'yes', { ok: true }]);
    const list = await master('GET', '/1/cloudCode');
    expect(list.body.results.map((r: { name: string }) => r.name)).toEqual(['created', 'hello']);
    expect((await master('GET', '/1/cloudCode/hello')).body).toMatchObject({ name: 'hello', suspended: false, recentTimeouts: 0, source: expect.stringContaining('hello ') });
  });

  it('answers the SDK (hydrogen-js-sdk 2.7.3, signed) with what a deployed function sent', async () => {
    const require = createRequire(import.meta.url);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const Bmob: any = require('hydrogen-js-sdk');
    Bmob.initialize(TEST_APP.secretKey, TEST_APP.securityCode);
    Bmob.domain(server.url);
    await deploy('sdkText', 'function onRequest(request, response) { response.send("hi " + request.body.name) }');
    await deploy('sdkJson', 'function onRequest(request, response) { response.send(JSON.stringify({ got: request.body.name })) }');
    expect(await Bmob.functions('sdkText', { name: 'x' })).toBe('hi x');
    const parsed: unknown = await Bmob.functions('sdkJson', { name: 'y' });
    expect(typeof parsed === 'string' ? JSON.parse(parsed) : parsed).toEqual({ got: 'y' });
  });

  it('refuses bad deployments with coded errors and keeps nothing of them', async () => {
    const cases: Array<[string, unknown, number]> = [
      ['broken', { language: 'node', source: 'function onRequest(a) {\n  let x = ;\n}' }, 11201],
      ['javaOne', { language: 'java', source: 'public static void onRequest() {}' }, 322],
      ['cobol', { language: 'cobol', source: 'DISPLAY 1.' }, 11202],
      ['empty', { language: 'node', source: '   ' }, 11202],
      ['huge', { language: 'node', source: `// ${'x'.repeat(300 * 1024)}` }, 11202],
      ['hostDouble', { language: 'node', source: 'function onRequest(q, r) { r.send(1) }' }, 11203],
      ['odd', { language: 'node', source: 'function onRequest(q, r) { r.send(1) }', extra: 1 }, 11202],
      ['bad name!', { language: 'node', source: 'function onRequest(q, r) { r.send(1) }' }, 11035],
    ];
    for (const [name, body, code] of cases) {
      const res = await master('PUT', `/1/cloudCode/${encodeURIComponent(name)}`, body);
      expect([name, res.body.code]).toEqual([name, code]);
    }
    expect((await master('PUT', '/1/cloudCode/broken', cases[0]![1])).body.error).toContain('line 2');
    expect(await server.request('PUT', '/1/cloudCode/x', { body: { language: 'node', source: 'x' } })).toMatchObject({ status: 403, body: { code: 11006 } });
    expect((await call('broken')).body.code).toBe(11032);
    expect((await server.request('GET', '/1/classes/_CloudCode')).body.code).toBe(11006);
  });

  it('reaches the modules through the bridge, as the caller: data, crypto, functions, http, logs', async () => {
    await deploy(
      'useModules',
      `async function onRequest(request, response, modules) {
        console.log('start', { n: request.body.n });
        modules.oData.insert({ table: 'Note', data: { text: 'from the sandbox' } }, async function (err, data) {
          if (err) return response.send({ err });
          const created = JSON.parse(data);
          const found = await modules.oData.find({ table: 'Note', where: { objectId: created.objectId } });
          const doubled = await modules.oFunctions.run({ name: 'hostDouble', data: { n: request.body.n } });
          const http = await modules.oHttp.get('${'${UPSTREAM}'}/ping');
          const md5 = modules.oCrypto.createHash('md5').update('abc').digest('hex');
          modules.oLog.log('done');
          response.send({ id: created.objectId, texts: found.results.map((r) => r.text), doubled, status: http.statusCode, body: JSON.parse(http.body), md5 });
        });
      }`.replace('${UPSTREAM}', upstreamUrl),
    );
    const res = await call('useModules', { n: 21 });
    expect(res.body.result).toMatchObject({ texts: ['from the sandbox'], doubled: 42, status: 200, body: { path: '/ping' }, md5: '900150983cd24fb0d6963f7d28e17f72' });
    expect((await server.request('GET', `/1/classes/Note/${res.body.result.id}`)).body.text).toBe('from the sandbox');
    const logs = await master('GET', '/1/cloudCode/useModules/logs?limit=5');
    expect(logs.body.results.map((l: { message: string }) => l.message)).toEqual(['done', 'start {"n":21}']);
    // A coded module error reaches the function's callback.
    await deploy('moduleError', "function onRequest(q, response, modules) { modules.oData.findOne({ table: 'Note', objectId: 'nope' }, function (err) { response.send(err) }) }");
    expect((await call('moduleError')).body.result).toMatchObject({ code: 101 });
  });

  it('keeps functions inside the sandbox: no process, require or host globals; no shared prototypes', async () => {
    await deploy(
      'probe',
      `function onRequest(request, response) {
        const global = (function () {}).constructor('return this')();
        let required = 'no';
        try { require('fs'); required = 'yes'; } catch (e) { required = 'threw'; }
        const seen = ({}).polluted === undefined ? 'clean' : 'polluted';
        Object.prototype.polluted = 'yes';
        Array.prototype.map = function () { return 'hijacked'; };
        response.send({ process: typeof process, global: typeof global.process, required, fetch: typeof fetch, seen });
      }`,
    );
    const source = (await master('GET', '/1/cloudCode/probe')).body.source;
    await deploy('otherProbe', source);
    const first = (await call('probe')).body.result;
    expect(first).toEqual({ process: 'undefined', global: 'undefined', required: 'threw', fetch: 'undefined', seen: 'clean' });
    // Another function (its own context, even with the same source) never sees it, and the host was never touched.
    expect((await call('otherProbe')).body.result.seen).toBe('clean');
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
    expect([1].map((x) => x + 1)).toEqual([2]);
  });

  it('stops loops (sync and promise chains) by their CPU budget and memory bombs by their cap, while other requests are served', async () => {
    await deploy('spin', 'function onRequest() { while (true) {} }');
    await deploy('chain', 'function onRequest() { let p = Promise.resolve(); const again = () => { p = p.then(again) }; again(); }');
    await deploy('bomb', 'function onRequest() { const a = []; while (true) a.push("x".repeat(1000)); }');
    const order: string[] = [];
    const bomb = call('bomb').then((r) => {
      order.push('bomb');
      return r;
    });
    const other = await server.request('GET', '/1/classes/Note');
    order.push('other');
    expect(other.status).toBe(200);
    expect((await bomb).body).toMatchObject({ code: 11033, error: expect.stringContaining('out of memory') });
    expect(order).toEqual(['other', 'bomb']);
    expect((await call('spin')).body.code).toBe(11204);
    expect((await call('chain')).body.code).toBe(11204);
  }, 30_000);

  it('counts a function that never sends as a timeout, suspends it, and resumes it when an operator says so', async () => {
    await deploy('silent', 'function onRequest(request, response) { if (request.body.answer) response.send("answered") }');
    for (let i = 0; i < 2; i++) {
      const pending = call('silent');
      while (timer.pending() === 0) await new Promise((r) => setImmediate(r));
      timer.fireAll();
      expect((await pending).body.code).toBe(11030);
    }
    expect((await call('silent', { answer: true })).body.code).toBe(11031);
    expect((await master('GET', '/1/cloudCode/silent')).body.suspended).toBe(true);
    expect((await master('PUT', '/1/cloudCode/silent', { suspended: false })).body).toEqual({ name: 'silent', suspended: false });
    expect((await call('silent', { answer: true })).body).toEqual({ result: 'answered' });
  });

  it('makes each module call once, whether the function answered at once (inline) or had to wait (a worker)', async () => {
    await deploy('counter', 'var n = 0; function onRequest(q, r) { n++; r.send(n) }');
    const counts: unknown[] = [];
    for (let i = 0; i < 5; i++) counts.push((await call('counter')).body.result);
    expect(counts).toEqual([1, 2, 3, 4, 5]);
    // Sent at once, then a write: the inline attempt is thrown away unseen, the worker writes once.
    await deploy('sendThenWrite', 'function onRequest(q, r, m) { r.send("ok"); m.oData.insert({ table: "OnceLog", data: { k: q.body.k } }, function () {}) }');
    await deploy('writeThenSend', 'function onRequest(q, r, m) { m.oData.insert({ table: "OnceLog", data: { k: q.body.k } }, function (e, d) { r.send(JSON.parse(d).objectId) }) }');
    expect((await call('sendThenWrite', { k: 'a' })).body).toEqual({ result: 'ok' });
    expect((await call('writeThenSend', { k: 'b' })).body.result).toEqual(expect.any(String));
    const rows = async (k: string) => (await server.request('GET', `/1/classes/OnceLog?where=${encodeURIComponent(JSON.stringify({ k }))}`)).body.results.length;
    await vi.waitFor(async () => expect(await rows('a')).toBe(1));
    expect(await rows('b')).toBe(1);
    // Inline or not, later calls see the same function.
    expect((await call('sendThenWrite', { k: 'c' })).body).toEqual({ result: 'ok' });
    await vi.waitFor(async () => expect(await rows('c')).toBe(1));
    expect(await rows('a')).toBe(1);
  });

  it('ends an invocation with the first of its reply and its failure, whichever promise job comes first', async () => {
    await deploy('failFirst', 'async function onRequest(q, r) { Promise.resolve().then(() => 0).then(() => 0).then(() => r.send("late")); throw new Error("first") }');
    await deploy('sendFirst', 'async function onRequest(q, r) { await null; r.send("sent"); throw new Error("after") }');
    expect((await call('failFirst')).body).toMatchObject({ code: 11033, error: expect.stringContaining('first') });
    expect((await call('sendFirst')).body).toEqual({ result: 'sent' });
  });

  it('keeps the sources table out of the schema API: not listed, not changed, not dropped', async () => {
    expect((await deploy('listedNot', 'function onRequest(request, response) { response.send(1) }')).status).toBe(200);
    const names = ((await master('GET', '/1/schemas')).body.results as Array<{ className: string }>).map((s) => s.className);
    expect(names).not.toContain('_CloudCode');
    expect(names).not.toContain('_ClassPermissions');
    expect((await master('DELETE', '/1/schemas/_CloudCode')).body.code).toBe(10073);
    expect((await master('PUT', '/1/schemas/_CloudCode', { fields: { extra: { type: 'String' } } })).body.code).toBe(10073);
    expect((await master('PUT', '/1/schemas/_CloudCode', { classLevelPermissions: { find: { '*': true } } })).body.code).toBe(10073);
    expect((await master('POST', '/1/schemas/_CloudCode', { fields: { extra: { type: 'String' } } })).body.code).toBe(10073);
    expect((await call('listedNot')).body.result).toBe(1);
  });

  it('fix 39.6: /1/cloudCode shows times as every other route does (YYYY-MM-DD HH:mm:ss), not ISO', async () => {
    const shape = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/;
    const saved = await deploy('dated', 'function onRequest(request, response, modules) { console.log("ran"); response.send("ok"); }');
    expect(saved.body.updatedAt).toMatch(shape);
    const created = await master('POST', '/1/classes/DatedProbe', { n: 1 });
    // Deployed in the same second as a record written just after it, give or take one second.
    expect(Math.abs(Date.parse(saved.body.updatedAt.replace(' ', 'T') + 'Z') - Date.parse(created.body.createdAt.replace(' ', 'T') + 'Z'))).toBeLessThanOrEqual(1000);
    expect((await master('GET', '/1/cloudCode/dated')).body.updatedAt).toMatch(shape);
    const listed = (await master('GET', '/1/cloudCode')).body.results.find((r: { name: string }) => r.name === 'dated');
    expect(listed.updatedAt).toMatch(shape);
    await call('dated');
    const logs = (await master('GET', '/1/cloudCode/dated/logs')).body.results;
    expect(logs.length).toBeGreaterThan(0);
    for (const line of logs) expect(line.at).toMatch(shape);
  });

  it('deletes a deployed function', async () => {
    await deploy('gone', 'function onRequest(q, r) { r.send(1) }');
    expect((await master('DELETE', '/1/cloudCode/gone')).body).toEqual({ msg: 'ok' });
    expect((await call('gone')).body.code).toBe(11032);
    expect((await master('DELETE', '/1/cloudCode/gone')).body.code).toBe(11032);
  });
});

describe('per-application function limits (featureSettings.functions)', () => {
  it('caps one application\'s concurrency and timeout without touching another\'s, and refuses bad settings', async () => {
    const timer = manualTimer();
    const tight = { ...TEST_APP, featureSettings: { functions: { maxConcurrent: 1, timeoutMs: 1500 } } };
    const other = { applicationId: 'other-app', restApiKey: 'other-rest', masterKey: 'other-master' };
    const server = await startTestServer({
      captcha: false,
      applications: [tight, other],
      functions: { definitions: { hang: (request, response) => void (request.body['answer'] && response.send('ok')) }, timer },
    });
    try {
      const asOther = { 'X-Svc-Application-Id': 'other-app', 'X-Svc-REST-API-Key': 'other-rest' };
      const first = server.request('POST', '/1/functions/hang', { body: {} });
      while (timer.pending() === 0) await new Promise((r) => setImmediate(r));
      expect((await server.request('POST', '/1/functions/hang', { body: { answer: true } })).body.code).toBe(10076);
      expect((await server.request('POST', '/1/functions/hang', { body: { answer: true }, auth: false, headers: asOther })).body).toEqual({ result: 'ok' });
      timer.fireAll();
      expect((await first).body).toMatchObject({ code: 11030, error: expect.stringContaining('1500 ms') });
    } finally {
      await server.close();
    }
    await expect(startTestServer({ captcha: false, applications: [{ ...TEST_APP, featureSettings: { functions: { timeoutMs: 0 } } }], functions: {} })).rejects.toMatchObject({ code: 11116 });
  });

  it("gives one application's deployed functions their own CPU budget and heap cap", async () => {
    const tight = { ...TEST_APP, featureSettings: { functions: { cpuTicks: 5, memoryBytes: 4 * 1024 * 1024 } } };
    const other = { applicationId: 'other-app', restApiKey: 'other-rest', masterKey: 'other-master' };
    const server = await startTestServer({ captcha: false, applications: [tight, other], functions: {} });
    try {
      const asOther = { 'X-Svc-Application-Id': 'other-app', 'X-Svc-REST-API-Key': 'other-rest' };
      const asOtherMaster = { 'X-Svc-Application-Id': 'other-app', 'X-Svc-Master-Key': 'other-master' };
      const spin = 'function onRequest(q, r) { let n = 0; for (let i = 0; i < 1000000; i++) n += i; r.send(n > 0) }';
      // About 12 MB in 1 KB strings: QuickJS's own cap sees each block as 8 bytes here; the measure sees them.
      const grow = 'function onRequest(q, r) { const a = []; for (let i = 0; i < 12000; i++) a.push("x".repeat(1000) + i); r.send(a.length) }';
      for (const [name, source] of [['spin', spin], ['grow', grow]] as const) {
        expect((await server.request('PUT', `/1/cloudCode/${name}`, { auth: 'master', body: { language: 'node', source } })).status).toBe(200);
        expect((await server.request('PUT', `/1/cloudCode/${name}`, { auth: false, headers: asOtherMaster, body: { language: 'node', source } })).status).toBe(200);
      }
      expect((await server.request('POST', '/1/functions/spin', { body: {} })).body).toMatchObject({ code: 11204, error: expect.stringContaining('5') });
      expect((await server.request('POST', '/1/functions/grow', { body: {} })).body).toMatchObject({ code: 11033, error: expect.stringContaining('out of memory') });
      expect((await server.request('POST', '/1/functions/spin', { body: {}, auth: false, headers: asOther })).body).toEqual({ result: true });
      expect((await server.request('POST', '/1/functions/grow', { body: {}, auth: false, headers: asOther })).body).toEqual({ result: 12000 });
    } finally {
      await server.close();
    }
    for (const functions of [{ memoryBytes: 1024 }, { cpuTicks: 0 }, { memoryBytes: 2 * 1024 * 1024 * 1024 }, { stackBytes: 1 }]) {
      await expect(startTestServer({ captcha: false, applications: [{ ...TEST_APP, featureSettings: { functions } }], functions: {} })).rejects.toMatchObject({ code: 11116 });
    }
  });
});

describe('deployed functions with inline runs off (deployed.inline: false)', () => {
  it('runs every invocation on a worker, with the same answers', async () => {
    const server = await startTestServer({ captcha: false, functions: { deployed: { inline: false, workers: 1 } } });
    try {
      const deploy = (name: string, source: string) => server.request('PUT', `/1/cloudCode/${name}`, { body: { language: 'node', source }, auth: 'master' });
      await deploy('counter', 'var n = 0; function onRequest(q, r) { n++; r.status(201).send(n + " " + q.headers["x-svc-application-id"]) }');
      const answers: unknown[] = [];
      for (let i = 0; i < 3; i++) answers.push((await server.request('POST', '/1/functions/counter', { body: {} })).body.result);
      expect(answers).toEqual([`1 ${TEST_APP.applicationId}`, `2 ${TEST_APP.applicationId}`, `3 ${TEST_APP.applicationId}`]);
    } finally {
      await server.close();
    }
  });
});
