import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Logger } from '../../src/core/logger.js';
import type { Json } from '../../src/core/wire-values.js';
import { type IsolatedVm, IsolatedVmSandbox } from '../../src/functions/sandbox/isolated-vm-sandbox.js';
import { isolatedVmAvailable, loadIsolatedVm, startedWithoutNodeSnapshot } from '../../src/functions/sandbox/isolated-vm-runtime.js';
import { DEFAULT_SANDBOX_LIMITS, type SandboxLimits } from '../../src/functions/sandbox/quickjs-sandbox.js';
import { recordingRun } from './recording-run.js';
import { lazySandboxRequest } from '../../src/functions/sandbox/sandbox-request.js';

/** isolated-vm where this machine has it and the test process started without Node's snapshot (vitest.config.ts); the sandbox's tests skip elsewhere. */
const ivm: IsolatedVm | null = isolatedVmAvailable() ? loadIsolatedVm() : null;

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const warnings: string[] = [];
const logger: Logger = { debug() {}, info() {}, warn: (message) => warnings.push(message), error() {} };

/** One attempt with `body` as the request body: whether it ran here, what the run was told, and how long it held the thread. */
function attempt(sandbox: IsolatedVmSandbox, source: string, options: { body?: Record<string, Json>; name?: string; version?: number; limits?: SandboxLimits; headers?: () => Record<string, string> } = {}) {
  const run = recordingRun();
  const request = lazySandboxRequest({ method: 'POST', body: options.body ?? {}, query: {}, path: null }, options.headers ?? (() => ({ 'x-a': '1' })), undefined);
  const began = performance.now();
  const ran = sandbox.tryRun({ key: `app\u0000${options.name ?? 'f'}`, version: options.version ?? 1, source }, request, options.limits ?? DEFAULT_SANDBOX_LIMITS, run);
  return { ran, events: run.events, ms: performance.now() - began };
}

describe('isolated-vm: when it may be chosen', () => {
  it('needs Node.js started with --no-node-snapshot, on its command line or in NODE_OPTIONS', () => {
    expect(startedWithoutNodeSnapshot([], '')).toBe(false);
    expect(startedWithoutNodeSnapshot(['--expose-gc'], '--max-old-space-size=100')).toBe(false);
    expect(startedWithoutNodeSnapshot(['--no-node-snapshot'], '')).toBe(true);
    expect(startedWithoutNodeSnapshot([], '--enable-source-maps --no-node-snapshot')).toBe(true);
  });

  it('is refused by createService in a process started from Node\'s snapshot, with the error saying so', () => {
    const script = [
      "import { createService } from './src/service.ts';",
      "import { memoryStorage } from './src/memory.ts';",
      "try {",
      "  createService({ storage: memoryStorage(), applications: [{ applicationId: 'a', restApiKey: 'r', masterKey: 'm' }], captcha: false, functions: { deployed: { inline: 'isolated-vm' } } });",
      "  console.log('created');",
      "} catch (error) { console.log(error.message); }",
    ].join('\n');
    const env = { ...process.env, NODE_OPTIONS: '' };
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, env, encoding: 'utf8' });
    expect(out.trim()).toBe("[svcbase] [functions] deployed.inline: 'isolated-vm' needs Node.js started with --no-node-snapshot (node --no-node-snapshot server.js): isolated-vm crashes the process without it (docs/functions.md)");
  }, 30_000);

  it('answers a configuration error naming what is missing', () => {
    const from = new URL('file:///nonexistent/svcbase/index.js').href;
    try {
      loadIsolatedVm(from);
      expect.unreachable('loaded isolated-vm from nowhere');
    } catch (error) {
      expect((error as Error).message).toMatch(/^\[svcbase\] \[functions\] deployed.inline: 'isolated-vm' needs (Node.js started with --no-node-snapshot|the optional peer dependency isolated-vm)/);
    }
  });
});

describe.runIf(ivm)('isolated-vm sandbox', () => {
  const sandbox = () => new IsolatedVmSandbox(ivm!, logger);

  it('runs a function that answers at once in V8, with its logs and headers in order, and keeps its state warm', () => {
    const s = sandbox();
    const source = `let n = 0; function onRequest(request, response, modules) {
      n++; console.log('n', n); modules.oData.setHeader({ 'x-n': String(n) });
      response.send({ n, engine: typeof Error.captureStackTrace, md5: modules.oCrypto.createHash('md5').update('abc').digest('hex'), name: request.body.name });
    }`;
    expect(attempt(s, source, { body: { name: 'a' } })).toMatchObject({ ran: true, events: ['log info n 1', 'setHeader {"x-n":"1"}', 'send {"n":1,"engine":"function","md5":"900150983cd24fb0d6963f7d28e17f72","name":"a"} 200'] });
    expect(attempt(s, source, { body: { name: 'b' } }).events.at(-1)).toBe('send {"n":2,"engine":"function","md5":"900150983cd24fb0d6963f7d28e17f72","name":"b"} 200');
    // A redeploy (a new version) starts from a new context.
    expect(attempt(s, source, { version: 2 }).events.at(-1)).toContain('"n":1');
    // A reply sent from a promise job (an async function) comes before the attempt returns.
    expect(attempt(s, 'async function onRequest(q, r) { await null; r.status(201).send("later") }', { name: 'later' }).events).toEqual(['send "later" 201']);
    // The first reply counts, whether sent before the call returned or from a promise job.
    expect(attempt(s, 'async function onRequest(q, r) { await null; r.send(1); r.send(2) }', { name: 'twiceLater' }).events).toEqual(['send 1 200']);
    expect(attempt(s, 'function onRequest(q, r) { Promise.resolve().then(() => r.send(2)); r.send(1) }', { name: 'twice' }).events).toEqual(['send 1 200']);
    // A failure first ends it too: a reply from a later promise job is not sent.
    expect(attempt(s, 'async function onRequest(q, r) { Promise.resolve().then(() => 0).then(() => 0).then(() => r.send("late")); throw new Error("first") }', { name: 'failThenSend' }).events).toEqual(['fail first']);
    // A function that throws fails, counted: a worker would fail the same way.
    expect(attempt(s, 'function onRequest() { throw new Error("boom") }', { name: 'throws' })).toMatchObject({ ran: true, events: ['fail boom'] });
    expect(attempt(s, 'throw new Error("at load")', { name: 'load' })).toMatchObject({ ran: true, events: ['fail at load'] });
    s.dispose();
  });

  it('makes the headers only when the function reads them, once, and only for its own invocation', () => {
    const s = sandbox();
    let made = 0;
    const headers = () => {
      made++;
      return { 'x-a': '1' };
    };
    const source = `let kept; function onRequest(request, response) {
      if (request.body.keep) { kept = request; response.send('kept'); return; }
      if (request.body.read) { response.send(request.headers['x-a']); return; }
      try { response.send(kept.headers['x-a']); } catch (e) { response.send(e.message); }
    }`;
    expect(attempt(s, source, { body: { keep: true }, headers }).events).toEqual(['send "kept" 200']);
    expect(made).toBe(0);
    expect(attempt(s, source, { body: { read: true }, headers }).events).toEqual(['send "1" 200']);
    expect(made).toBe(1);
    // A request kept from an earlier invocation cannot read its headers first in a later one.
    expect(attempt(s, source, { body: {}, headers }).events).toEqual(['send "request.headers can only be read first during its own invocation" 200']);
    expect(made).toBe(1);
    s.dispose();
  });

  it('hands anything that is not over at once to a worker, having told the run nothing and started no module call', () => {
    const s = sandbox();
    const cases = [
      'function onRequest(q, r, m) { m.oData.find({ table: "T" }, () => {}); r.send(1) }',
      'function onRequest(q, r) { setTimeout(() => r.send(1), 0) }',
      'function onRequest(q, r, m) { r.send(m.oMoment().year()) }',
      'function onRequest(q, r, m) { r.send(require("async") ? 1 : 0) }',
      'function onRequest(q, r, m) { console.log("before"); m.oGzip.gzip("x").then(() => r.send(1)) }',
    ];
    cases.forEach((source, i) => expect(attempt(s, source, { name: `moved${i}` })).toEqual({ ran: false, events: [], ms: expect.any(Number) }));
    // The move is remembered: the next invocations go to a worker without an attempt.
    expect(attempt(s, 'function onRequest(q, r) { r.send(1) }', { name: 'moved0' }).ran).toBe(false);
    s.dispose();
  });

  it('stops a loop at its timeout, builtins and promise jobs included, and the isolate runs the next function', () => {
    const s = sandbox();
    const loops = [
      'function onRequest() { while (true) {} }',
      'function onRequest() { let p = Promise.resolve(); const again = () => { p = p.then(again) }; again(); }',
      'function onRequest(q, r) { r.send(/(a+)+$/.test("a".repeat(40) + "b")) }',
      'function onRequest(q, r) { const a = Array.from({ length: 300000 }, (_, i) => -i); for (;;) a.sort((x, y) => x - y); }',
      'function onRequest(q, r) { r.send("x") ; for (;;) {} }',
    ];
    loops.forEach((source, i) => {
      const { ran, events, ms } = attempt(s, source, { name: `loop${i}` });
      expect({ ran, events }).toEqual({ ran: false, events: [] });
      // The load timeout (10 ms) at most, with room for a slow machine; a loop on the thread would never return.
      expect(ms).toBeLessThan(500);
    });
    expect(attempt(s, 'function onRequest(q, r) { r.send("still here") }', { name: 'after' }).events).toEqual(['send "still here" 200']);
    s.dispose();
  });

  it('keeps functions inside their context: no host objects, no shared prototypes, no blocking or background globals', () => {
    const s = sandbox();
    const probe = `function onRequest(request, response) {
      const global = (function () {}).constructor('return this')();
      let required = 'no';
      try { require('fs'); required = 'yes'; } catch (e) { required = 'threw'; }
      const seen = ({}).polluted === undefined ? 'clean' : 'polluted';
      Object.prototype.polluted = 'yes';
      Array.prototype.map = function () { return 'hijacked'; };
      const names = ['process', 'Buffer', 'fetch', 'SharedArrayBuffer', 'Atomics', 'WebAssembly', 'FinalizationRegistry', 'WeakRef', '__host', '__hostSync', '__respond', '__fail', '__ivmSync', '__ivmMoved', '__bridged'];
      response.send({ present: names.filter((n) => typeof global[n] !== 'undefined'), required, seen });
    }`;
    expect(attempt(s, probe, { name: 'probe' }).events).toEqual(['send {"present":[],"required":"threw","seen":"clean"} 200']);
    // Another function (its own context, the same source) never sees the first one's changes; nor does the host.
    expect(attempt(s, probe, { name: 'otherProbe' }).events).toEqual(['send {"present":[],"required":"threw","seen":"clean"} 200']);
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
    expect([1].map((x) => x + 1)).toEqual([2]);
    s.dispose();
  });

  it('moves a run that grows the heap past its cap, and replaces the isolate when a run reaches the isolate\'s cap', () => {
    const s = sandbox();
    const small = { ...DEFAULT_SANDBOX_LIMITS, memoryBytes: 4 * 1024 * 1024 };
    expect(attempt(s, 'const kept = []; function onRequest(q, r) { kept.push(new Uint8Array(6 * 1024 * 1024)); r.send(kept.length) }', { name: 'grows', limits: small })).toMatchObject({ ran: false, events: [] });
    warnings.length = 0;
    expect(attempt(s, 'function onRequest(q, r) { r.send(new Array(3e7).fill(1.5).length) }', { name: 'huge' })).toMatchObject({ ran: false, events: [] });
    // One builtin call V8 does not interrupt: it reaches the isolate's cap (or holds the thread past 50 ms), a trap.
    expect(warnings).toEqual(["functions: an isolated-vm attempt ran too long or reached the isolate's memory cap; the function runs on the workers from now on"]);
    // That function never runs here again; another one runs in the new isolate.
    expect(attempt(s, 'function onRequest(q, r) { r.send(1) }', { name: 'huge' }).ran).toBe(false);
    expect(attempt(s, 'function onRequest(q, r) { r.send("fresh") }', { name: 'fresh' }).events).toEqual(['send "fresh" 200']);
    s.dispose();
  });

  it('leaves an application with a small CPU budget to the workers, where its budget is counted exactly', () => {
    const s = sandbox();
    expect(attempt(s, 'function onRequest(q, r) { r.send(1) }', { limits: { ...DEFAULT_SANDBOX_LIMITS, cpuTicks: 199 } }).ran).toBe(false);
    expect(attempt(s, 'function onRequest(q, r) { r.send(1) }', { limits: { ...DEFAULT_SANDBOX_LIMITS, cpuTicks: 200 } }).ran).toBe(true);
    expect(attempt(s, 'function onRequest(q, r) { r.send(1) }').ran).toBe(true);
    s.dispose();
  });
});
