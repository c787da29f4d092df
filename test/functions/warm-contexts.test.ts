import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { QuickJSWASMModule } from 'quickjs-emscripten-core';
import type { Json } from '../../src/core/wire-values.js';
import { DEFAULT_SANDBOX_LIMITS, type SandboxHost, loadQuickJs } from '../../src/functions/sandbox/quickjs-sandbox.js';
import { WarmContexts } from '../../src/functions/sandbox/warm-contexts.js';
import { type ApplicationConfig } from '../../src/app/application.js';
import { TEST_APP, type TestServer, appHeaders, startTestServer } from '../helpers/server.js';
import { sandboxRequestOfText } from '../../src/functions/sandbox/sandbox-request.js';

const noLibraries = {
  librarySource: (name: string): string => {
    throw new Error(`no ${name} here`);
  },
  iconv: undefined,
};

/** A global counter: 1 in a fresh context, one more on each warm invocation. */
const COUNTER = 'var count = 0; function onRequest(request, response) { count++; response.send(count) }';

interface Outcome {
  sent?: Json;
  failed?: string;
  idle: boolean;
}

/** Runs one invocation and reports what it sent or why it failed, once it is idle. */
function invoke(contexts: WarmContexts, key: string | null, source: string, call: SandboxHost['call'] = async () => null, version = 1): Promise<Outcome> {
  return new Promise((resolve) => {
    const outcome: Outcome = { idle: false };
    contexts.invoke({ key, version, source }, sandboxRequestOfText('{"body":{}}'), DEFAULT_SANDBOX_LIMITS, {
      call,
      setHeader() {},
      log() {},
      send: (reply) => (outcome.sent = reply.value),
      fail: (message) => (outcome.failed = message),
      idle: () => resolve({ ...outcome, idle: true }),
    });
  });
}

describe('warm sandbox contexts', () => {
  let quickjs: QuickJSWASMModule;
  beforeAll(async () => {
    quickjs = await loadQuickJs();
  });

  it('answers with the first reply, sent before or after onRequest returns, whatever follows it', async () => {
    const contexts = new WarmContexts(quickjs, noLibraries);
    const run = (source: string) => invoke(contexts, null, source);
    expect(await run('function onRequest(q, r) { r.send(1); r.send(2) }')).toEqual({ sent: 1, idle: true });
    expect(await run('function onRequest(q, r) { r.send("kept"); throw new Error("after the reply") }')).toEqual({ sent: 'kept', idle: true });
    expect(await run('function onRequest(q, r) { throw new Error("before any reply") }')).toEqual({ failed: 'before any reply', idle: true });
    expect(await run('function onRequest(q, r) { r.status(201); r.setHeader("x-a", "1"); r.send(null) }')).toEqual({ sent: null, idle: true });
    expect(await run('async function onRequest(q, r) { await null; r.send("later"); r.send("ignored") }')).toEqual({ sent: 'later', idle: true });
    expect(await run('function onRequest(q, r) { Promise.resolve().then(() => r.send("in a job")) }')).toEqual({ sent: 'in a job', idle: true });
  });

  it('reuses a function\'s context (its globals persist) and never another key\'s', async () => {
    const contexts = new WarmContexts(quickjs, noLibraries);
    expect((await invoke(contexts, 'app\0counter', COUNTER)).sent).toBe(1);
    expect((await invoke(contexts, 'app\0counter', COUNTER)).sent).toBe(2);
    // The same source under another name, or another application, starts fresh.
    expect((await invoke(contexts, 'app\0twin', COUNTER)).sent).toBe(1);
    expect((await invoke(contexts, 'other\0counter', COUNTER)).sent).toBe(1);
    expect((await invoke(contexts, 'app\0counter', COUNTER)).sent).toBe(3);
    // A null key is always fresh, and keeps nothing.
    expect((await invoke(contexts, null, COUNTER)).sent).toBe(1);
    expect((await invoke(contexts, null, COUNTER)).sent).toBe(1);
    expect(contexts.size).toBe(3);
  });

  it('gives each warm invocation its own response and oEvent hub', async () => {
    const contexts = new WarmContexts(quickjs, noLibraries);
    const source = `var calls = 0;
function onRequest(request, response, modules) {
  calls++;
  var heard = 0;
  modules.oEvent.on('ping', function () { heard++; });
  modules.oEvent.emit('ping', 1);
  if (calls === 1) response.status(201).setHeader('X-First', 'yes');
  response.send({ calls: calls, heard: heard });
}`;
    const replies: unknown[] = [];
    for (let i = 0; i < 2; i++) {
      await new Promise<void>((resolve) =>
        contexts.invoke({ key: 'ev', version: 1, source }, sandboxRequestOfText('{}'), DEFAULT_SANDBOX_LIMITS, { call: async () => null, setHeader() {}, log() {}, send: (reply) => replies.push(reply), fail() {}, idle: resolve }),
      );
    }
    expect(replies).toEqual([
      { value: { calls: 1, heard: 1 }, status: 201, headers: { 'X-First': 'yes' } },
      { value: { calls: 2, heard: 1 }, status: 200, headers: {} },
    ]);
  });

  it('starts fresh after a redeploy, after a failure, and after a reply sent with work pending', async () => {
    const contexts = new WarmContexts(quickjs, noLibraries);
    await invoke(contexts, 'k', COUNTER);
    expect((await invoke(contexts, 'k', COUNTER)).sent).toBe(2);
    const changed = COUNTER + '\n// v2';
    expect((await invoke(contexts, 'k', changed)).sent).toBe(1);
    // A redeploy of the same text (a new version) starts fresh too.
    expect((await invoke(contexts, 'k', changed, undefined, 2)).sent).toBe(1);

    const flaky = 'var count = 0; function onRequest(request, response) { count++; if (count === 2) throw new Error("boom"); response.send(count) }';
    expect((await invoke(contexts, 'f', flaky)).sent).toBe(1);
    expect((await invoke(contexts, 'f', flaky)).failed).toBe('boom');
    expect((await invoke(contexts, 'f', flaky)).sent).toBe(1);

    // Sends while a module call is still out: the context is dropped, and the late answer is harmless.
    let answer: (value: Json) => void = () => {};
    const pending = () => new Promise<Json>((resolve) => (answer = resolve));
    const eager = 'var count = 0; function onRequest(request, response, modules) { count++; modules.oData.find({ table: "T" }, function () {}); response.send(count) }';
    const first = await invoke(contexts, 'e', eager, pending);
    expect(first).toEqual({ sent: 1, idle: true });
    answer({ results: [] });
    await new Promise((resolve) => setImmediate(resolve));
    expect((await invoke(contexts, 'e', eager, pending)).sent).toBe(1);
    // QuickJS is still sound after freeing a runtime with a call in flight.
    expect((await invoke(contexts, 'k', changed, undefined, 2)).sent).toBe(2);
  });

  it('holds a runtime to its memory cap by measuring it, though QuickJS itself counts each block as 8 bytes here', async () => {
    const contexts = new WarmContexts(quickjs, noLibraries);
    const limits = { ...DEFAULT_SANDBOX_LIMITS, memoryBytes: 4 * 1024 * 1024 };
    const run = (key: string, source: string) =>
      new Promise<Outcome>((resolve) => {
        const outcome: Outcome = { idle: false };
        contexts.invoke({ key, version: 1, source }, sandboxRequestOfText('{"body":{}}'), limits, {
          call: async () => null,
          setHeader() {},
          log() {},
          send: (reply) => (outcome.sent = reply.value),
          fail: (message) => (outcome.failed = message),
          idle: () => resolve({ ...outcome, idle: true }),
        });
      });
    // 12 MB in 1 KB strings, in one call.
    expect(await run('many', 'function onRequest(q, r) { const a = []; for (let i = 0; i < 12000; i++) a.push("x".repeat(1000) + i); r.send(a.length) }')).toEqual({ failed: 'out of memory', idle: true });
    // 200 KB kept per short call in a global: measured at least every 32nd call, the context is
    // dropped once past the cap (the call that was measured keeps its reply), and starts afresh.
    const keeper = 'var kept = []; function onRequest(q, r) { for (let i = 0; i < 200; i++) kept.push("y".repeat(1000) + i); r.send(kept.length) }';
    const sent: unknown[] = [];
    for (let i = 0; i < 64; i++) sent.push((await run('keeper', keeper)).sent);
    const restart = sent.indexOf(200, 1);
    expect(restart).toBeGreaterThanOrEqual(15); // 4 MiB hold about 20 calls' worth: none is dropped early
    expect(restart).toBeLessThanOrEqual(33);
    expect(sent.slice(0, restart)).toEqual(Array.from({ length: restart }, (_, i) => (i + 1) * 200));
    // Under the cap nothing changes.
    expect((await run('small', 'function onRequest(q, r) { const a = []; for (let i = 0; i < 1000; i++) a.push("z".repeat(1000) + i); r.send(a.length) }')).sent).toBe(1000);
  });

  it('stops a warm function at its CPU budget on every invocation, and keeps at most `capacity` idle contexts', async () => {
    const contexts = new WarmContexts(quickjs, noLibraries, 2);
    const spinSecond = 'var count = 0; function onRequest(request, response) { count++; if (count > 1) while (true) {} response.send(count) }';
    expect((await invoke(contexts, 's', spinSecond)).sent).toBe(1);
    expect((await invoke(contexts, 's', spinSecond)).failed).toBe('interrupted');
    for (const key of ['a', 'b', 'c']) await invoke(contexts, key, COUNTER);
    expect(contexts.size).toBe(2);
    // 'a' was the least recently used: evicted, so it starts again from 1; 'c' is still warm.
    expect((await invoke(contexts, 'c', COUNTER)).sent).toBe(2);
    expect((await invoke(contexts, 'a', COUNTER)).sent).toBe(1);
  });
});

describe('warm contexts over HTTP', () => {
  const OTHER_APP: ApplicationConfig = { applicationId: 'other-app', restApiKey: 'other-rest-key', masterKey: 'other-master-key', secretKey: 'other-secret-key' };
  const servers: TestServer[] = [];
  const start = async (keepWarm: boolean) => {
    const server = await startTestServer({ applications: [TEST_APP, OTHER_APP], functions: { deployed: { workers: 1, keepWarm } } });
    servers.push(server);
    return server;
  };
  afterAll(async () => {
    for (const server of servers) await server.close();
  });
  const deploy = (server: TestServer, app: ApplicationConfig) =>
    fetch(`${server.url}/1/cloudCode/counter`, {
      method: 'PUT',
      headers: { ...appHeaders(app), 'X-Svc-Master-Key': app.masterKey, 'content-type': 'application/json' },
      body: JSON.stringify({ language: 'node', source: COUNTER }),
    });
  const call = async (server: TestServer, app: ApplicationConfig) =>
    ((await (await fetch(`${server.url}/1/functions/counter`, { method: 'POST', headers: { ...appHeaders(app), 'content-type': 'application/json' }, body: '{}' })).json()) as { result: number }).result;

  it('keeps a deployed function warm per application by default, and fresh with keepWarm: false', async () => {
    const warm = await start(true);
    for (const app of [TEST_APP, OTHER_APP]) expect((await deploy(warm, app)).status).toBe(200);
    expect([await call(warm, TEST_APP), await call(warm, TEST_APP), await call(warm, OTHER_APP), await call(warm, TEST_APP)]).toEqual([1, 2, 1, 3]);
    // Redeploying replaces the warm context.
    await deploy(warm, TEST_APP);
    expect(await call(warm, TEST_APP)).toBe(1);

    const fresh = await start(false);
    await deploy(fresh, TEST_APP);
    expect([await call(fresh, TEST_APP), await call(fresh, TEST_APP)]).toEqual([1, 1]);
  });
});
