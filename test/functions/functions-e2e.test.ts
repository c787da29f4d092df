import { type Server, createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import { svcError } from '../../src/core/errors.js';
import type { CloudFunction } from '../../src/functions/index.js';
import { TEST_APP, type TestServer, appHeaders, startTestServer } from '../helpers/server.js';
import { FAST_SCRYPT } from '../users/users-server.js';
import { manualTimer } from './manual-timer.js';


const SECRET = TEST_APP.secretKey!;
const release: Array<() => void> = [];

const definitions: Record<string, CloudFunction> = {
  hello: (request, response) => response.send(`hello ${String(request.body['name'] ?? request.query['name'] ?? 'world')}`),
  echo: (request, response) => response.send({ method: request.method, body: request.body, query: request.query }),
  whole: (request, response) => response.send(JSON.parse(JSON.stringify({ request, spread: Object.keys({ ...request }).sort() }))),
  index: (_request, response) => response.send('the index'),
  notfound: (_request, response) => response.status(404).send({ missing: true }),
  teapot: (_request, response) => {
    response.setHeader('Access-Control-Allow-Origin', '*');
    response.setHeader('Content-Type', 'text/html; charset=utf-8');
    response.status(418).send('<b>short and stout</b>');
  },
  save: async (request, response, modules) => {
    const created = await modules.oData.insert({ table: 'Note', data: { text: String(request.body['text']) } });
    response.send(created);
  },
  saveCallback: (request, response, modules) => {
    modules.oData.insert({ table: 'Note', data: { text: String(request.body['text']) } }, (err, data) => {
      response.send(err ? { err } : JSON.parse(data!));
    });
  },
  readSecret: async (request, response, modules) => {
    if (request.body['master'] === true) modules.oData.setHeader({ 'X-Bmob-Master-Key': TEST_APP.masterKey });
    try {
      response.send(await modules.oData.findOne({ table: 'Note', objectId: String(request.body['id']) }));
    } catch (error) {
      response.send({ code: (error as { code: number }).code });
    }
  },
  outer: async (_request, response, modules) => response.send({ inner: await modules.oFunctions.run({ name: 'hello', data: { name: 'inner' } }) }),
  recurse: async (_request, response, modules) => response.send(await modules.oFunctions.run({ name: 'recurse' })),
  tour: async (_request, response, modules) => {
    const made = (await modules.oArray.add({ table: 'Tour', data: { tags: { __op: 'Add', objects: ['a'] } } })) as { objectId: string };
    const id = made.objectId;
    await modules.oArray.addUnique({ table: 'Tour', objectId: id, data: { tags: { __op: 'AddUnique', objects: ['a', 'b'] } } });
    await modules.oArray.remove({ table: 'Tour', objectId: id, data: { tags: { __op: 'Remove', objects: ['a'] } } });
    await modules.oAtom.exec({ table: 'Tour', objectId: id, data: { n: { __op: 'Increment', amount: 3 } } });
    await modules.oLocation.create({ table: 'Tour', objectId: id, data: { at: { __type: 'GeoPoint', latitude: 30, longitude: 120 } } });
    const near = (await modules.oLocation.query({ table: 'Tour', where: { at: { $nearSphere: { __type: 'GeoPoint', latitude: 30, longitude: 120 } } }, limit: 1 })) as {
      results: Array<{ objectId: string }>;
    };
    const other = (await modules.oRelation.add({ table: 'Tour', data: { label: 'other' } })) as { objectId: string };
    const pointer = { __type: 'Pointer', className: 'Tour', objectId: other.objectId };
    await modules.oRelation.update({ table: 'Tour', objectId: id, data: { friends: { __op: 'AddRelation', objects: [pointer] } } });
    const related = (await modules.oRelation.query({ table: 'Tour', where: { $relatedTo: { object: { __type: 'Pointer', className: 'Tour', objectId: id }, key: 'friends' } } })) as {
      results: Array<{ objectId: string }>;
    };
    const batch = await modules.oBatch.exec({ data: { requests: [{ method: 'POST', path: '/1/classes/Tour', body: { label: 'batched' } }] } });
    const userBatch = await modules.oBatch.exec({ data: { requests: [{ method: 'POST', path: '/1/classes/_User', body: {} }] } }).catch((error: { code: number }) => error.code);
    const md5 = modules.oCrypto.createHash('md5').update('abc').digest('hex');
    const sha1 = modules.oCrypto.createHash('sha1').update('abc').digest('hex');
    response.send({ id, near: near.results.map((r) => r.objectId), related: related.results.map((r) => r.objectId), other: other.objectId, batch, userBatch, md5, sha1 });
  },
  outbound: async (request, response, modules) => {
    try {
      const res = await modules.oHttp.get(String(request.body['url']));
      response.send({ status: res!.statusCode, body: res!.body });
    } catch (error) {
      response.send({ code: (error as { code: number }).code });
    }
  },
  outboundCallback: (request, response, modules) => {
    void modules.oHttp.post({ url: String(request.body['url']), json: { hi: 1 } }, (err, res, body) => response.send(err ? { code: err.code } : { status: res!.statusCode, body: body! }));
  },
  bql: async (request, response, modules) => {
    response.send(await modules.oBql.exec({ bql: 'select count(*) from Note where text = ?', values: JSON.stringify([request.body['text']]) }));
  },
  silent: () => {},
  stuck: () => new Promise<void>((resolve) => release.push(resolve)),
  throws: () => {
    throw new Error('boom');
  },
  refuses: () => {
    throw svcError('paramRequired', 'name');
  },
};

describe('cloud functions over HTTP (host-defined)', () => {
  let server: TestServer;
  let target: Server;
  let targetPort = 0;
  const timer = manualTimer();
  const clock = new FakeClock(Date.UTC(2026, 0, 1));

  beforeAll(async () => {
    server = await startTestServer({
      clock,
      captcha: false,
      users: { scrypt: FAST_SCRYPT },
      functions: {
        definitions,
        timer,
        limits: { maxConcurrent: 3, suspendAfter: 2, suspendWindowMs: 60_000, suspendForMs: 300_000 },
        http: { allowHosts: ['127.0.0.1'], maxResponseBytes: 1000 },
      },
    });
    target = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => res.end(req.url === '/big' ? 'x'.repeat(5000) : `${req.method} ${req.url} ${body}`));
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    targetPort = (target.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await server.close();
    await new Promise<void>((resolve) => target.close(() => resolve()));
  });

  it('oHttp reaches an allowed host; loopback, private and reserved addresses and other schemes are refused; responses are capped', async () => {
    const call = async (name: string, url: string) => (await server.request('POST', `/1/functions/${name}`, { body: { url } })).body.result;
    expect(await call('outbound', `http://127.0.0.1:${targetPort}/ok`)).toEqual({ status: 200, body: 'GET /ok ' });
    expect(await call('outboundCallback', `http://127.0.0.1:${targetPort}/in`)).toEqual({ status: 200, body: 'POST /in {"hi":1}' });
    // `localhost` names the same server, but is not the allowed host: it resolves to loopback and is refused at connect time.
    for (const url of [`http://localhost:${targetPort}/`, `http://[::1]:${targetPort}/`, 'http://10.0.0.1/', 'http://169.254.169.254/latest/meta-data', 'http://[::ffff:127.0.0.1]/', 'file:///etc/passwd']) {
      expect([url, await call('outbound', url)]).toEqual([url, { code: 11036 }]);
    }
    expect(await call('outbound', `http://127.0.0.1:${targetPort}/big`)).toEqual({ code: 11038 });
  });

  it('POST /1/functions/:name answers {result}: a string, an object, an empty body', async () => {
    expect((await server.request('POST', '/1/functions/hello', { body: { name: 'x' } })).body).toEqual({ result: 'hello x' });
    const echoed = await server.request('POST', '/1/functions/echo', { body: { a: 1 } });
    expect(echoed.body).toEqual({ result: { method: 'POST', body: { a: 1 }, query: {} } });
    // The request serialises whole (its lazy query and headers included), and spreading it shows only its own fields.
    const whole = await fetch(`${server.url}/1/functions/whole?x=1`, { method: 'POST', headers: { ...appHeaders(), 'content-type': 'application/json', 'x-probe': 'p' }, body: '{"a":2}' });
    const result = ((await whole.json()) as { result: { request: Record<string, unknown>; spread: string[] } }).result;
    expect(result.request).toMatchObject({ method: 'POST', body: { a: 2 }, query: { x: '1' }, headers: { 'x-probe': 'p' }, path: '/1/functions/whole' });
    expect(result.spread).toEqual(['body', 'method', 'path', 'raw']);
    expect((await server.request('POST', '/1/functions/hello')).body).toEqual({ result: 'hello world' });
    expect((await server.request('POST', '/1/functions/hello', { auth: false, body: {} })).status).toBe(401);
  });

  it('unknown, invalid and failing functions answer coded errors', async () => {
    expect(await server.request('POST', '/1/functions/nope', { body: {} })).toMatchObject({ status: 404, body: { code: 11032 } });
    expect((await server.request('POST', `/1/functions/${encodeURIComponent("a'b")}`, { body: {} })).body.code).toBe(11035);
    expect(await server.request('POST', '/1/functions/throws', { body: {} })).toMatchObject({ status: 424, body: { code: 11033 } });
    expect((await server.request('POST', '/1/functions/refuses', { body: {} })).body.code).toBe(118);
    expect((await server.request('POST', '/1/functions/hello', { rawBody: '[1]', headers: { 'content-type': 'application/json' } })).body.code).toBe(107);
  });

  it('the plain-HTTP form: query, form fields, index, notfound, the status and headers the function chose', async () => {
    const get = await fetch(`${server.url}/${SECRET}/hello?name=jeff`);
    expect([get.status, await get.text(), get.headers.get('content-type')]).toEqual([200, 'hello jeff', 'text/plain; charset=utf-8']);
    const post = await fetch(`${server.url}/${SECRET}/echo`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'name=jeff&n=1' });
    expect(await post.json()).toEqual({ method: 'POST', body: { name: 'jeff', n: '1' }, query: {} });
    expect(await (await fetch(`${server.url}/${SECRET}`)).text()).toBe('the index');
    const missing = await fetch(`${server.url}/${SECRET}/unknownName`);
    expect([missing.status, await missing.json()]).toEqual([404, { missing: true }]);
    const teapot = await fetch(`${server.url}/${SECRET}/teapot`);
    expect([teapot.status, teapot.headers.get('access-control-allow-origin'), teapot.headers.get('content-type'), await teapot.text()]).toEqual([
      418,
      '*',
      'text/html; charset=utf-8',
      '<b>short and stout</b>',
    ]);
    // A wrong secret is no function host at all: the unknown-route answer.
    const wrong = await fetch(`${server.url}/not-the-secret/hello`);
    expect([wrong.status, ((await wrong.json()) as { code: number }).code]).toEqual([404, 11001]);
    expect((await server.request('GET', '/1/nothing-here')).body.code).toBe(11001);
  });

  it('oData runs as the caller: writes visible over REST, ACLs apply, setHeader switches to the master key', async () => {
    const saved = await server.request('POST', '/1/functions/save', { body: { text: 'from a function' } });
    expect(saved.body.result).toMatchObject({ objectId: expect.any(String), createdAt: expect.any(String) });
    const read = await server.request('GET', `/1/classes/Note/${saved.body.result.objectId}`);
    expect(read.body.text).toBe('from a function');
    const viaCallback = await server.request('POST', '/1/functions/saveCallback', { body: { text: 'callback form' } });
    expect(viaCallback.body.result).toMatchObject({ objectId: expect.any(String) });

    const secret = await server.request('POST', '/1/classes/Note', { body: { text: 'private', ACL: {} }, auth: 'master' });
    const asCaller = await server.request('POST', '/1/functions/readSecret', { body: { id: secret.body.objectId } });
    expect(asCaller.body.result).toEqual({ code: 101 });
    const asMaster = await server.request('POST', '/1/functions/readSecret', { body: { id: secret.body.objectId, master: true } });
    expect(asMaster.body.result.text).toBe('private');
  });

  it('oArray, oAtom, oLocation, oRelation, oBatch and oCrypto write and read as the REST API does', async () => {
    const res = await server.request('POST', '/1/functions/tour', { body: {} });
    expect(res.status).toBe(200);
    const out = res.body.result;
    const row = (await server.request('GET', `/1/classes/Tour/${out.id}`)).body;
    expect(row).toMatchObject({ tags: ['b'], n: 3, at: { __type: 'GeoPoint', latitude: 30, longitude: 120 } });
    expect(out.near).toEqual([out.id]);
    expect(out.related).toEqual([out.other]);
    expect(out.batch[0]).toHaveProperty('success');
    expect(out.userBatch).toBe(11071);
    expect([out.md5, out.sha1]).toEqual(['900150983cd24fb0d6963f7d28e17f72', 'a9993e364706816aba3e25717850c26c9cd0d89d']);
  });

  it('oBql.exec runs BQL as the caller (values as the JSON text the hosted module takes)', async () => {
    await server.request('POST', '/1/classes/Note', { body: { text: 'bql me' } });
    expect((await server.request('POST', '/1/functions/bql', { body: { text: 'bql me' } })).body.result).toEqual({ results: [], count: 1, className: 'Note' });
  });

  it('oFunctions.run calls another function of the app, with a bounded depth', async () => {
    expect((await server.request('POST', '/1/functions/outer', { body: {} })).body).toEqual({ result: { inner: 'hello inner' } });
    expect((await server.request('POST', '/1/functions/recurse', { body: {} })).body.code).toBe(11034);
  });

  it('a function that never sends times out (424, 11030); repeated timeouts suspend it until the cool-down', async () => {
    const first = server.request('POST', '/1/functions/silent', { body: {} });
    while (timer.pending() === 0) await new Promise((r) => setImmediate(r));
    timer.fireAll();
    expect(await first).toMatchObject({ status: 424, body: { code: 11030 } });
    const second = server.request('POST', '/1/functions/silent', { body: {} });
    while (timer.pending() === 0) await new Promise((r) => setImmediate(r));
    timer.fireAll();
    expect((await second).body.code).toBe(11030);
    expect(await server.request('POST', '/1/functions/silent', { body: {} })).toMatchObject({ status: 403, body: { code: 11031 } });
    // Other functions keep working while one is suspended.
    expect((await server.request('POST', '/1/functions/hello', { body: {} })).status).toBe(200);
    clock.advance(300_001);
    const third = server.request('POST', '/1/functions/silent', { body: {} });
    while (timer.pending() === 0) await new Promise((r) => setImmediate(r));
    timer.fireAll();
    expect((await third).body.code).toBe(11030);
  });

  it('past the concurrency cap a call is refused at once (10076); the others finish', async () => {
    const running = [1, 2, 3].map(() => server.request('POST', '/1/functions/stuck', { body: {} }));
    while (release.length < 3) await new Promise((r) => setImmediate(r));
    const refused = await server.request('POST', '/1/functions/hello', { body: {} });
    expect([refused.status, refused.body.code]).toEqual([429, 10076]);
    timer.fireAll();
    for (const r of await Promise.all(running)) expect(r.body.code).toBe(11030);
    release.splice(0).forEach((resolve) => resolve());
    expect((await server.request('POST', '/1/functions/hello', { body: {} })).status).toBe(200);
  });
});

describe('cloud functions through hydrogen-js-sdk 2.7.3 (Node, signed)', () => {
  const require = createRequire(import.meta.url);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const Bmob: any = require('hydrogen-js-sdk');
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ captcha: false, users: { scrypt: FAST_SCRYPT }, functions: { definitions }, brands: ['Svc', 'Bmob'] });
    Bmob.initialize(TEST_APP.secretKey, TEST_APP.securityCode);
    Bmob.domain(server.url);
  });
  afterAll(() => server.close());

  it('Bmob.functions returns what the function sent: a string, and JSON.stringify of an object', async () => {
    expect(await Bmob.functions('hello', { name: 'x' })).toBe('hello x');
    const parsed: unknown = await Bmob.functions('echo', { a: 1 });
    expect(parsed).toEqual({ method: 'POST', body: { a: 1 }, query: {} });
  });
});
