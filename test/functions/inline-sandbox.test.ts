import { describe, expect, it } from 'vitest';
import type { QuickJSWASMModule } from 'quickjs-emscripten-core';
import type { Logger } from '../../src/core/logger.js';
import type { Json } from '../../src/core/wire-values.js';
import { InlineSandbox } from '../../src/functions/sandbox/inline-sandbox.js';
import { DEFAULT_SANDBOX_LIMITS, newQuickJsInstance } from '../../src/functions/sandbox/quickjs-sandbox.js';
import { recordingRun } from './recording-run.js';
import { lazySandboxRequest, sandboxRequestOfText, sandboxRequestText } from '../../src/functions/sandbox/sandbox-request.js';

const noLibraries = {
  librarySource: (name: string): string => {
    throw new Error(`no ${name} here`);
  },
  iconv: undefined,
};

const warnings: string[] = [];
const logger: Logger = { debug() {}, info() {}, warn: (message) => warnings.push(message), error() {} };

/** One attempt with `body` as the request body: whether it ran inline, and what the run was told. */
function attempt(sandbox: InlineSandbox, source: string, body: Record<string, Json> = {}, name = 'f') {
  const run = recordingRun();
  const ran = sandbox.tryRun({ key: `app\u0000${name}`, version: 1, source }, lazySandboxRequest({ method: 'POST', body, query: {}, path: null }, () => ({ 'x-a': '1' }), undefined), DEFAULT_SANDBOX_LIMITS, run);
  return { ran, events: run.events };
}

describe('inline sandbox', () => {
  // An instance each: an attempt that runs out of fuel spoils its instance.
  const sandbox = async () => new InlineSandbox(await newQuickJsInstance(import.meta.url, { fuel: true }), noLibraries, logger);

  it('runs a function that answers at once, with its logs and headers in order, and keeps its state warm', async () => {
    const inline = await sandbox();
    const source =
      'var count = 0; function onRequest(request, response, modules) { count++; console.log("call", count, request.headers["x-a"]); modules.oData.setHeader({ "X-Bmob-Session-Token": "t" }); response.status(201).send(count) }';
    expect(attempt(inline, source)).toEqual({ ran: true, events: ['log info call 1 1', 'setHeader {"X-Bmob-Session-Token":"t"}', 'send 1 201'] });
    expect(attempt(inline, source).events).toEqual(['log info call 2 1', 'setHeader {"X-Bmob-Session-Token":"t"}', 'send 2 201']);
    // A function that throws fails here as it would on a worker.
    expect(attempt(inline, 'function onRequest() { throw new Error("no") }', {}, 'thrower')).toEqual({ ran: true, events: ['fail no'] });
  });

  it('hands over the whole request (headers decoded when read) and replies with any text', async () => {
    const inline = await sandbox();
    const send = (code: string, name: string) => attempt(inline, `function onRequest(request, response) { ${code} }`, { n: 1 }, name).events;
    expect(send('response.send(JSON.stringify(request))', 'whole')).toEqual([`send ${JSON.stringify(JSON.stringify({ method: 'POST', body: { n: 1 }, query: {}, path: null, headers: { 'x-a': '1' } }))} 200`]);
    expect(send('request.headers = 5; response.send(request.headers + Object.keys(request).length)', 'assigned')).toEqual(['send 10 200']);
    expect(send('response.send("a\\u0000b")', 'nul')).toEqual([`send ${JSON.stringify('a\u0000b')} 200`]);
    expect(send('response.setHeader("x-b", "2"); response.send("")', 'empty')).toEqual(['send "" 200']);
  });

  it('makes the headers and the raw body only when the function reads them, once, and only for its own invocation', async () => {
    const inline = await sandbox();
    let made = 0;
    const request = (raw?: Uint8Array) => lazySandboxRequest({ method: 'POST', body: {}, query: {}, path: null }, () => (made++, { 'x-a': '1' }), raw);
    const run = (source: string, name: string, raw?: Uint8Array) => {
      const recorded = recordingRun();
      expect(inline.tryRun({ key: `app\u0000${name}`, version: 1, source }, request(raw), DEFAULT_SANDBOX_LIMITS, recorded), name).toBe(true);
      return recorded.events;
    };
    expect(run('function onRequest(q, r) { r.send(q.method) }', 'unread')).toEqual(['send "POST" 200']);
    expect(made).toBe(0);
    expect(run('function onRequest(q, r) { r.send(q.headers["x-a"] + q.headers["x-a"] + typeof q.raw) }', 'twice')).toEqual(['send "11undefined" 200']);
    expect(made).toBe(1);
    expect(run('function onRequest(q, r) { r.send(q.raw.toString() + q.raw.length) }', 'raw', new TextEncoder().encode('é!'))).toEqual(['send "é!3" 200']);
    // A request kept by a warm context answers what it read during its invocation; what it never read, it never will.
    const keeper = 'var kept = []; function onRequest(q, r) { if (kept.length === 0) q.headers; kept.push(q); try { r.send(kept[0].headers["x-a"] + " " + kept[kept.length - 1].raw) } catch (e) { r.send(e.message) } }';
    expect(run(keeper, 'keeper')).toEqual(['send "1 undefined" 200']);
    expect(run(keeper, 'keeper', new TextEncoder().encode('b'))).toEqual(['send "1 b" 200']);
    const stale = 'var old; function onRequest(q, r) { if (!old) { old = q; return r.send("kept") } try { r.send(old.headers) } catch (e) { r.send(e.message) } }';
    expect(run(stale, 'stale')).toEqual(['send "kept" 200']);
    expect(run(stale, 'stale')).toEqual(['send "request.headers can only be read first during its own invocation" 200']);
  });

  it('hands a worker the whole request as one text, split there into the same parts', () => {
    const request = lazySandboxRequest({ method: 'PUT', body: 'x', query: { a: '1' }, path: 'p' }, () => ({ 'x-b': 'two' }), new Uint8Array([0, 255, 1]));
    const received = sandboxRequestOfText(sandboxRequestText(request));
    expect([received.rest, received.hasRaw, received.headers(), received.raw()]).toEqual([request.rest, true, '{"x-b":"two"}', 'AP8B']);
    const bare = sandboxRequestOfText(sandboxRequestText(lazySandboxRequest({ method: 'GET' }, () => ({}), undefined)));
    expect([bare.rest, bare.hasRaw, bare.headers(), bare.raw()]).toEqual(['{"method":"GET"}', false, '{}', '']);
  });

  it('hands anything that is not over at once to a worker, having told the run nothing and started no module call', async () => {
    const inline = await sandbox();
    const moved = (source: string, name: string) => {
      const result = attempt(inline, source, {}, name);
      expect(result, name).toEqual({ ran: false, events: [] });
    };
    moved('function onRequest(q, r, m) { console.log("before"); m.oData.find({ table: "T" }, function (e, d) { r.send(d) }) }', 'moduleCall');
    // Sent, but a module call still follows: the worker must make it, once.
    moved('function onRequest(q, r, m) { r.send("early"); m.oData.insert({ table: "T", data: {} }, function () {}) }', 'callAfterSend');
    moved('function onRequest(q, r) { setTimeout(function () { r.send("later") }, 1) }', 'timer');
    moved('function onRequest(q, r) { for (;;) {} }', 'loop');
    moved('function onRequest(q, r) { Promise.resolve().then(function spin() { return Promise.resolve().then(spin) }) }', 'promiseLoop');
    moved('function onRequest(q, r) { var async = require("async"); r.send(typeof async) }', 'library');
    moved('function onRequest(q, r, m) { r.send(typeof m.oGzip.gzip("x")) }', 'gzip');
    moved('function onRequest(q, r) { function f(n) { return f(n + 1) + 1 } f(0) }', 'recursion');
  });

  it("throws away a moved run's state, and skips inline attempts for a while after a move", async () => {
    const inline = await sandbox();
    const source = 'var count = 0; function onRequest(q, r, m) { count++; if (q.body.wait) m.oData.find({ table: "T" }, function () {}); else r.send(count) }';
    expect(attempt(inline, source).events).toEqual(['send 1 200']);
    expect(attempt(inline, source).events).toEqual(['send 2 200']);
    expect(attempt(inline, source, { wait: true }).ran).toBe(false);
    // The next 8 go to a worker without an attempt, then the next attempt starts a fresh context.
    for (let i = 0; i < 8; i++) expect(attempt(inline, source).ran).toBe(false);
    expect(attempt(inline, source).events).toEqual(['send 1 200']);
    // A second move doubles the wait.
    expect(attempt(inline, source, { wait: true }).ran).toBe(false);
    let skipped = 0;
    while (!attempt(inline, source).ran) skipped++;
    expect(skipped).toBe(16);
  });

  it('makes new contexts at a bounded rate once 64 are warm, and never parses a long source inline', async () => {
    const inline = await sandbox();
    const source = 'function onRequest(q, r) { r.send("ok") }';
    for (let i = 0; i < 64; i++) expect(attempt(inline, source, {}, `f${i}`).ran).toBe(true);
    // A 65th function would evict a warm one and parse the prelude: not yet.
    expect(attempt(inline, source, {}, 'f64').ran).toBe(false);
    for (let i = 0; i < 128; i++) expect(attempt(inline, source, {}, `f${i % 64}`).ran).toBe(true);
    expect(attempt(inline, source, {}, 'f64').ran).toBe(true);
    expect(attempt(inline, `// ${'x'.repeat(64 * 1024)}\n${source}`, {}, 'long').ran).toBe(false);
  });

  it('retires its QuickJS instance once its wasm memory grew past 256 MiB', async () => {
    const inline = new InlineSandbox(await newQuickJsInstance(import.meta.url, { fuel: true }), noLibraries, logger);
    // Each function keeps 7 MB warm (under the inline heap of 8 MiB), so the instance grows with each new one.
    const big = 'const kept = new Uint8Array(7000000); function onRequest(q, r) { r.send(kept.length) }';
    const run = (fn: { key: string; version: number; source: string }, sandbox: InlineSandbox) => sandbox.tryRun(fn, lazySandboxRequest({}, () => ({}), undefined), DEFAULT_SANDBOX_LIMITS, recordingRun());
    let calls = 0;
    let grower = { key: 'app\u0000big0', version: 1, source: big };
    while (!inline.retired && calls < 60) {
      grower = { key: `app\u0000big${calls}`, version: 1, source: big };
      expect(run(grower, inline)).toBe(true);
      calls++;
    }
    expect(calls).toBeGreaterThan(30);
    expect(inline.retired).toBe(true);
    expect(warnings).toContain('functions: the inline QuickJS instance is replaced after its heap grew');
    expect(attempt(inline, 'function onRequest(q, r) { r.send(1) }').ran).toBe(false);
    // Its successor runs other functions at once, and sends the one that grew the heap to the workers.
    const next = new InlineSandbox(await newQuickJsInstance(import.meta.url, { fuel: true }), noLibraries, logger, inline);
    expect(attempt(next, 'function onRequest(q, r) { r.send(1) }').ran).toBe(true);
    expect(run(grower, next)).toBe(false);
  }, 30_000);

  it('bounds an attempt by its fuel, builtins included: out of fuel, the instance is retired and the function never runs inline again', async () => {
    warnings.length = 0;
    const inline = new InlineSandbox(await newQuickJsInstance(import.meta.url, { fuel: true }), noLibraries, logger);
    expect(attempt(inline, 'function onRequest(q, r) { r.send(1) }', {}, 'fine').ran).toBe(true);
    // One builtin call that QuickJS's interrupt handler never sees: 2^50 turns of a C loop.
    const hostile = 'function onRequest(q, r) { if (q.body.go) Array.prototype.indexOf.call({ length: 2 ** 50 }, 1); r.send(2) }';
    expect(attempt(inline, hostile, {}, 'hostile').ran).toBe(true); // loads warm
    const started = performance.now();
    expect(attempt(inline, hostile, { go: true }, 'hostile')).toEqual({ ran: false, events: [] });
    expect(performance.now() - started).toBeLessThan(1000); // about 1-2 ms of work; generous for a loaded machine
    expect(inline.retired).toBe(true);
    expect(warnings).toEqual(['functions: an inline attempt ran out of fuel; the inline QuickJS instance is replaced']);
    const next = new InlineSandbox(await newQuickJsInstance(import.meta.url, { fuel: true }), noLibraries, logger, inline);
    expect(attempt(next, 'function onRequest(q, r) { r.send(1) }', {}, 'fine').ran).toBe(true);
    for (let i = 0; i < 2000; i++) expect(attempt(next, hostile, {}, 'hostile').ran).toBe(false);
  });

  it('turns itself off when an error escapes QuickJS', async () => {
    warnings.length = 0;
    const broken = await newQuickJsInstance(import.meta.url, { fuel: true });
    broken.newRuntime = () => {
      throw new Error('wasm trap');
    };
    const inline = new InlineSandbox(broken, noLibraries, logger);
    expect(attempt(inline, 'function onRequest(q, r) { r.send(1) }').ran).toBe(false);
    expect(attempt(inline, 'function onRequest(q, r) { r.send(1) }', {}, 'other').ran).toBe(false);
    expect(warnings).toEqual(['functions: inline runs turned off after an error escaped QuickJS']);
  });
});
