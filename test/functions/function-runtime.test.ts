import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FunctionRuntime, RuntimeInvocation } from '../../src/functions/runtime.js';
import { type TestServer, startTestServer } from '../helpers/server.js';

/**
 * The FunctionRuntime port (issue 38): a host's own runtime plugs in through `functions.runtimes`
 * without touching functions/. It is tried before the built-in ones of its language, runs what it
 * takes (its reply, module calls and timeout under the runner's rules), and may decline an
 * invocation, which the built-in QuickJS runtimes then run.
 */
describe('a runtime of the host plugs into deployed functions', () => {
  let server: TestServer;
  const seen: string[] = [];
  const checked: string[] = [];
  const echo: FunctionRuntime = {
    name: 'echo',
    language: 'node',
    async check(name, source) {
      checked.push(name);
      if (source.includes('refuse me')) throw new Error('not for this runtime');
    },
    async invoke(invocation: RuntimeInvocation) {
      seen.push(invocation.fn.name);
      // Only functions whose source asks for it; every other one goes on to QuickJS.
      if (!invocation.fn.source.startsWith('// echo')) return 'declined';
      invocation.started();
      const found = (await invocation.modules.oData.find({ table: 'Note' })) as { results: unknown[] };
      invocation.response.send({ by: 'echo', app: invocation.caller.app.applicationId, body: invocation.request.body, notes: found.results.length });
      return 'done';
    },
    async close() {},
  };

  const master = (method: string, path: string, body?: unknown) => server.request(method, path, { body, auth: 'master' });
  const deploy = (name: string, source: string) => master('PUT', `/1/cloudCode/${name}`, { language: 'node', source });

  beforeAll(async () => {
    server = await startTestServer({ captcha: false, functions: { runtimes: [echo] } });
    await master('POST', '/1/classes/Note', { text: 'a' });
  });
  afterAll(() => server.close());

  it('runs what it takes, with the caller\'s modules, and hands on what it declines', async () => {
    expect((await deploy('mine', '// echo\nfunction onRequest() {}')).status).toBe(200);
    expect((await deploy('theirs', 'function onRequest(q, r) { r.send("quickjs " + q.body.n) }')).status).toBe(200);
    expect(checked).toEqual(['mine', 'theirs']);
    const mine = await server.request('POST', '/1/functions/mine', { body: { n: 1 } });
    expect(mine.body).toEqual({ result: { by: 'echo', app: 'test-app', body: { n: 1 }, notes: 1 } });
    const theirs = await server.request('POST', '/1/functions/theirs', { body: { n: 2 } });
    expect(theirs.body).toEqual({ result: 'quickjs 2' });
    expect(seen).toEqual(['mine', 'theirs']);
  });

  it('its check refuses a source before it is stored', async () => {
    const refused = await deploy('bad', '// refuse me\nfunction onRequest() {}');
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect((await master('GET', '/1/cloudCode/bad')).body.code).toBe(11032);
  });
});

/**
 * `invokeNow` (issue 41, D250): a runtime that knows its outcome at once answers without a promise;
 * the deployed function is then found in the cached sources and started without waiting. Its
 * declines still hand the invocation on, and `invoke` is not called when `invokeNow` is there.
 */
describe('a runtime answering at once (invokeNow)', () => {
  let server: TestServer;
  const calls: string[] = [];
  const now: FunctionRuntime = {
    name: 'now',
    language: 'node',
    async check() {},
    invokeNow(invocation) {
      calls.push(`now:${invocation.fn.name}`);
      if (!invocation.fn.source.startsWith('// now')) return 'declined';
      invocation.started();
      invocation.response.send(`now ${String(invocation.request.body['n'])}`);
      return 'done';
    },
    async invoke(invocation) {
      calls.push(`invoke:${invocation.fn.name}`);
      return 'declined';
    },
    async close() {},
  };
  const master = (method: string, path: string, body?: unknown) => server.request(method, path, { body, auth: 'master' });

  beforeAll(async () => {
    server = await startTestServer({ captcha: false, functions: { runtimes: [now] } });
  });
  afterAll(() => server.close());

  it('sends at once, hands on what it declines, and is used in place of invoke', async () => {
    expect((await master('PUT', '/1/cloudCode/quick', { language: 'node', source: '// now\nfunction onRequest() {}' })).status).toBe(200);
    expect((await master('PUT', '/1/cloudCode/other', { language: 'node', source: 'function onRequest(q, r) { r.send("quickjs " + q.body.n) }' })).status).toBe(200);
    for (let i = 0; i < 2; i++) {
      expect((await server.request('POST', '/1/functions/quick', { body: { n: i } })).body).toEqual({ result: `now ${i}` });
      expect((await server.request('POST', '/1/functions/other', { body: { n: i } })).body).toEqual({ result: `quickjs ${i}` });
    }
    expect(calls).toEqual(['now:quick', 'now:other', 'now:quick', 'now:other']);
  });
});
