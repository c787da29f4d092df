/**
 * Cloud-function invocation overhead (issue 16, target ≥ 0.5x): `POST /1/functions/hello` running a
 * host-defined function that answers `hello <name>`, against a host route doing the same work
 * (`POST /1/bench/hello`, the same body, the same reply shape), both through `service.handle()` on
 * one service, so the difference is the functions runtime: name check, suspension and concurrency
 * bookkeeping, timeout timer, response object, modules. Host-defined functions have no cold start
 * (they are plain functions). The same function deployed as source runs in QuickJS, in the
 * function's warm context, once on the main thread (inline, the default for a call that answers at
 * once) and once on a worker thread (`deployed.inline: false`): one call at a time, 16 in flight,
 * and over real HTTP; then with `keepWarm: false` (a fresh runtime per invocation), and its cold
 * start (a fresh service: QuickJS's wasm loaded on the first call), each against the same route.
 * Where isolated-vm is installed, the deployed rows run a third time inline in a V8 isolate
 * (`deployed.inline: 'isolated-vm'`, D216), and a function that computes is timed on it against
 * QuickJS. bench/run.ts starts this group with `--no-node-snapshot`, as isolated-vm needs.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { memoryStorage } from '../src/memory.js';
import { createService } from '../src/service.js';
import { APP, BODY_TEXT, DEPLOYED_SOURCE, HEADERS, deploy, functionsBenchService } from './functions-app.js';
import type { FunctionsServerReady } from './functions-server.js';
import { type BenchConfig, type Comparison, compare, median } from './harness.js';
import { type ResultRow, comparisonRow } from './report.js';
import { type Shot, shoot } from './rest.js';
import { isolatedVmAvailable } from '../src/functions/sandbox/isolated-vm-runtime.js';

const BODY = new TextEncoder().encode(BODY_TEXT);

const JAVA_SOURCE =
  'public static void onRequest(final Request request, final Response response, final Modules modules) throws Throwable {\n' +
  '  response.send("hello " + request.getParams().getString("name"));\n}';

/** A deployed function that computes: the sum of the first 100,000 integers' squares modulo 7. */
const SUM_SOURCE = 'function onRequest(request, response) { let s = 0; for (let i = 0; i < 100000; i++) s += (i * i) % 7; response.send("hello " + request.body.name + " " + s) }';

/** Requests kept in flight by the concurrent rows. */
const IN_FLIGHT = 16;

/** An op that sends `IN_FLIGHT` requests at once and waits for all. */
function inFlight(op: () => Promise<unknown>): () => Promise<unknown> {
  return () => Promise.all(Array.from({ length: IN_FLIGHT }, op));
}

/** A comparison of `inFlight` ops restated per request (the ratios are unchanged). */
function perRequest(c: Comparison): Comparison {
  const scale = (values: readonly number[]) => values.map((v) => v * IN_FLIGHT);
  return { ...c, ours: c.ours * IN_FLIGHT, reference: c.reference * IN_FLIGHT, oursRounds: scale(c.oursRounds), referenceRounds: scale(c.referenceRounds), oursWall: c.oursWall * IN_FLIGHT, referenceWall: c.referenceWall * IN_FLIGHT };
}

/**
 * The physical limit of one call at a time through a worker thread: a bare echo worker, answering a
 * run message of the same shape (JSON text both ways, as the pool posts) with one batch, awaited in turn.
 */
function workerRoundTrip(): { op: () => Promise<unknown>; close: () => Promise<number> } {
  const worker = new Worker(
    "const port = require('node:worker_threads').parentPort; port.on('message', (text) => { const m = JSON.parse(text); port.postMessage(JSON.stringify([{ type: 'send', id: m.id }, { type: 'idle', id: m.id }])); })",
    { eval: true },
  );
  let id = 0;
  const op = () =>
    new Promise<unknown>((resolve) => {
      worker.once('message', resolve);
      worker.postMessage(JSON.stringify({ type: 'run', id: ++id, fn: { key: 'benchfn\u0000helloDeployed', version: 1, source: DEPLOYED_SOURCE }, requestText: JSON.stringify({ method: 'POST', body: { name: 'bench' }, query: {}, headers: HEADERS, path: null }), limits: {} }));
    });
  return { op, close: () => worker.terminate() };
}

/** A deployed function on a service whose sandbox gives every invocation a fresh runtime. */
async function freshRuntime(config: BenchConfig, reference: () => Promise<unknown>): Promise<Comparison> {
  const service = createService({ storage: memoryStorage(), applications: [APP], captcha: false, users: false, realtime: false, functions: { deployed: { keepWarm: false } } });
  try {
    const put = await deploy(service, 'fresh', 'node', DEPLOYED_SOURCE);
    if (put.status !== 200) throw new Error(`deploy answered ${put.status}`);
    const call = () => service.handle({ method: 'POST', path: '/1/functions/fresh', search: '', headers: HEADERS, body: BODY });
    const first = await call();
    if (first.status !== 200) throw new Error(`fresh call answered ${first.status} ${String(first.body)}`);
    return await compare(config, call, reference, { clock: 'wall' });
  } finally {
    await service.close();
  }
}

/** Median first-call and warm-call times of a deployed function, each on a fresh service. */
async function coldStart(config: BenchConfig): Promise<Comparison & { detail: { coldMs: number; warmMs: number; samples: number } }> {
  const samples = config.quick ? 3 : 7;
  const colds: number[] = [];
  const warms: number[] = [];
  for (let i = 0; i < samples; i++) {
    const service = createService({ storage: memoryStorage(), applications: [APP], captcha: false, users: false, realtime: false, functions: {} });
    try {
      const put = await deploy(service, 'cold', 'node', DEPLOYED_SOURCE);
      if (put.status !== 200) throw new Error(`deploy answered ${put.status}`);
      const once = async () => {
        const started = performance.now();
        const res = await service.handle({ method: 'POST', path: '/1/functions/cold', search: '', headers: HEADERS, body: BODY });
        if (res.status !== 200) throw new Error(`cold call answered ${res.status} ${String(res.body)}`);
        return performance.now() - started;
      };
      colds.push(await once());
      for (let j = 0; j < 20; j++) warms.push(await once());
    } finally {
      await service.close();
    }
  }
  const coldMs = median(colds);
  const warmMs = median(warms);
  const ours = 1000 / coldMs;
  const reference = 1000 / warmMs;
  return { ours, reference, ratio: ours / reference, oursRounds: colds.map((ms) => 1000 / ms), referenceRounds: warms.map((ms) => 1000 / ms), oursWall: ours, referenceWall: reference, wallRatio: ours / reference, detail: { coldMs, warmMs, samples } };
}

/** The functions server (bench/functions-server.ts) in a child process, its deployed functions run as `inline` says. */
function startServer(inline: Inline): Promise<{ child: ChildProcess; port: number }> {
  const entry = import.meta.url.endsWith('.ts') ? './functions-server.ts' : './functions-server.mjs';
  const child = fork(fileURLToPath(new URL(entry, import.meta.url)), inline === false ? ['--worker'] : inline === 'isolated-vm' ? ['--isolated-vm'] : [], { execArgv: process.execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('functions server did not start within 60 s')), 60_000);
    child.once('message', (ready: FunctionsServerReady) => {
      clearTimeout(timer);
      resolve({ child, port: ready.port });
    });
    child.once('exit', (code) => reject(new Error(`functions server exited early (${code})`)));
  });
}

/**
 * Over real HTTP (autocannon, 10 connections, against the child's node:http server): a function
 * path against the host route, in interleaved rounds, each side first in turn.
 */
async function overHttp(config: BenchConfig, port: number, path: string): Promise<Comparison & { bad: number; p99: [number, number] }> {
  const workload = (p: string) => ({ name: p, method: 'POST' as const, paths: [p], body: BODY_TEXT, status: 200 });
  const seconds = config.quick ? 0.4 : 1.5;
  const rounds = config.quick ? 2 : 7;
  for (const p of [path, '/1/bench/hello']) await shoot(port, workload(p), HEADERS, config.quick ? 0.2 : 1);
  const ours: Shot[] = [];
  const route: Shot[] = [];
  for (let round = 0; round < rounds; round++) {
    const sides: Array<[string, Shot[]]> = [
      [path, ours],
      ['/1/bench/hello', route],
    ];
    if (round % 2 === 1) sides.reverse();
    for (const [p, into] of sides) into.push(await shoot(port, workload(p), HEADERS, seconds));
  }
  const rps = (shots: readonly Shot[]) => shots.map((s) => s.rps);
  const ratio = median(ours.map((s, i) => s.rps / route[i]!.rps));
  return {
    ours: median(rps(ours)),
    reference: median(rps(route)),
    ratio,
    oursRounds: rps(ours),
    referenceRounds: rps(route),
    oursWall: median(rps(ours)),
    referenceWall: median(rps(route)),
    wallRatio: ratio,
    bad: [...ours, ...route].reduce((n, s) => n + s.bad, 0),
    p99: [median(ours.map((s) => s.p99)), median(route.map((s) => s.p99))],
  };
}

type Inline = boolean | 'isolated-vm';

/**
 * Each deployed row inline (the default: QuickJS on the main thread when the call answers at once),
 * on a worker, and, where isolated-vm is installed (and this child started with
 * `--no-node-snapshot`, as bench/run.ts starts it), inline in a V8 isolate.
 */
const RUNTIMES: ReadonlyArray<{ readonly inline: Inline; readonly label: string }> = [
  { inline: true, label: 'inline: QuickJS on the main thread' },
  { inline: false, label: 'deployed.inline: false: QuickJS on a worker thread' },
  ...(isolatedVmAvailable() ? [{ inline: 'isolated-vm' as const, label: "deployed.inline: 'isolated-vm': a V8 isolate on the main thread" }] : []),
];

/** Stops a functions server child and waits for it to exit. */
async function stopServer(server: { child: ChildProcess }): Promise<void> {
  server.child.send('stop');
  await new Promise((resolve) => server.child.once('exit', resolve));
}

export async function run(config: BenchConfig): Promise<ResultRow[]> {
  const service = functionsBenchService();
  const workerService = functionsBenchService({ inline: false });
  const isolatedVmService = RUNTIMES.some((r) => r.inline === 'isolated-vm') ? functionsBenchService({ inline: 'isolated-vm' }) : null;
  try {
    const callOn = (on: typeof service) => (path: string) => () => on.handle({ method: 'POST', path, search: '', headers: HEADERS, body: BODY });
    const call = callOn(service);
    const check = async (on: typeof service, path: string) => {
      const res = await callOn(on)(path)();
      if (res.status !== 200 || !String(res.body).includes('hello bench')) throw new Error(`${path} answered ${res.status} ${String(res.body)}`);
    };
    await check(service, '/1/functions/hello');
    await check(service, '/1/bench/hello');
    config.log('functions: invocation through service.handle');
    const result = await compare(config, call('/1/functions/hello'), call('/1/bench/hello'));
    const rows: ResultRow[] = [
      comparisonRow('functions', 'POST /1/functions/hello (host-defined) vs a host route doing the same', 'host route', result, 0.5, {
        unit: 'req/s',
        note: 'in-process through service.handle (no sockets): the difference is the functions runtime',
      }),
    ];
    for (const runtime of RUNTIMES) {
      const on = runtime.inline === 'isolated-vm' ? isolatedVmService! : runtime.inline ? service : workerService;
      const put = await deploy(on, 'helloDeployed', 'node', DEPLOYED_SOURCE);
      if (put.status !== 200) throw new Error(`deploy answered ${put.status} ${String(put.body)}`);
      await check(on, '/1/functions/helloDeployed');
      config.log(`functions: a deployed function (${runtime.label})`);
      const deployed = await compare(config, callOn(on)('/1/functions/helloDeployed'), call('/1/bench/hello'), { clock: 'wall' });
      config.log(`functions: a deployed function (${runtime.label}), ${IN_FLIGHT} in flight`);
      const concurrent = perRequest(await compare(config, inFlight(callOn(on)('/1/functions/helloDeployed')), inFlight(call('/1/bench/hello')), { clock: 'wall' }));
      rows.push(
        comparisonRow('functions', `POST /1/functions/helloDeployed (deployed source, ${runtime.label}) vs a host route doing the same`, 'host route', deployed, 0.5, {
          unit: 'req/s',
          note:
            runtime.inline === 'isolated-vm'
              ? "wall clock, one call at a time; each invocation: the function's warm V8 context in the isolate, entered synchronously under a 2 ms timeout"
              : runtime.inline
                ? "wall clock, one call at a time; each invocation: the function's warm QuickJS context on the main thread, JSON across the boundary"
                : "wall clock, one call at a time; each invocation: the function's warm QuickJS context, two thread hops, JSON across the boundary",
        }),
        comparisonRow('functions', `POST /1/functions/helloDeployed (${runtime.label}), ${IN_FLIGHT} in flight, vs the host route, ${IN_FLIGHT} in flight`, 'host route', concurrent, 0.5, {
          unit: 'req/s',
          note: runtime.inline ? 'wall clock; both sides per request' : 'wall clock; both sides per request; 2 worker threads',
        }),
      );
      if (runtime.inline === false) {
        config.log('functions: a deployed function on a worker against a bare worker round trip');
        const echo = workerRoundTrip();
        const hop = await compare(config, callOn(on)('/1/functions/helloDeployed'), echo.op, { clock: 'wall' }).finally(echo.close);
        rows.push(
          comparisonRow('functions', 'POST /1/functions/helloDeployed on a worker, one call at a time, vs a bare round trip to a worker thread (the limit of one call at a time there)', 'worker echo', hop, null, {
            unit: 'req/s',
            note: 'wall clock; the echo answers the same run message, with no HTTP, runner or QuickJS work',
          }),
        );
      }
    }
    if (isolatedVmService) {
      // Where V8 differs most: a function that computes (QuickJS inline gives up on it after about a
      // millisecond of interpreted work and runs it again on a worker; V8 finishes it inline).
      for (const on of [service, isolatedVmService]) {
        const put = await deploy(on, 'sumDeployed', 'node', SUM_SOURCE);
        if (put.status !== 200) throw new Error(`deploy answered ${put.status} ${String(put.body)}`);
      }
      await check(service, '/1/functions/sumDeployed');
      await check(isolatedVmService, '/1/functions/sumDeployed');
      config.log('functions: a deployed function that computes, isolated-vm against QuickJS');
      const sum = await compare(config, callOn(isolatedVmService)('/1/functions/sumDeployed'), callOn(service)('/1/functions/sumDeployed'), { clock: 'wall' });
      rows.push(
        comparisonRow('functions', "POST /1/functions/sumDeployed (a deployed function summing 100,000 numbers), deployed.inline: 'isolated-vm' vs the default (QuickJS)", 'QuickJS (inline, then a worker)', sum, null, {
          unit: 'req/s',
          note: 'wall clock, one call at a time; QuickJS stops the inline attempt after about 1 ms of interpreted work and runs the call again on a worker',
        }),
      );
    }
    config.log('functions: over real HTTP (a child process serving node:http)');
    for (const runtime of RUNTIMES) {
      const server = await startServer(runtime.inline);
      try {
        if (runtime.inline === true) {
          const httpHost = await overHttp(config, server.port, '/1/functions/hello');
          rows.push(
            comparisonRow('functions', 'over HTTP: POST /1/functions/hello (host-defined) vs a host route doing the same', 'host route over HTTP', httpHost, 0.5, {
              unit: 'req/s',
              note: `autocannon, 10 connections, to a child process's node:http server; p99 ${httpHost.p99[0]} vs ${httpHost.p99[1]} ms${httpHost.bad > 0 ? `; ${httpHost.bad} bad responses` : ''}`,
            }),
          );
        }
        const httpDeployed = await overHttp(config, server.port, '/1/functions/helloDeployed');
        rows.push(
          comparisonRow('functions', `over HTTP: POST /1/functions/helloDeployed (deployed, ${runtime.label}) vs a host route doing the same`, 'host route over HTTP', httpDeployed, 0.5, {
            unit: 'req/s',
            note: `autocannon, 10 connections${runtime.inline === false ? ' (two worker threads busy)' : ''}; p99 ${httpDeployed.p99[0]} vs ${httpDeployed.p99[1]} ms${httpDeployed.bad > 0 ? `; ${httpDeployed.bad} bad responses` : ''}`,
          }),
        );
      } finally {
        await stopServer(server);
      }
    }
    config.log('functions: a deployed function with keepWarm: false');
    const fresh = await freshRuntime(config, call('/1/bench/hello'));
    config.log('functions: cold start of a deployed function');
    const cold = await coldStart(config);
    const javaDeploy = await deploy(service, 'helloJava', 'java', JAVA_SOURCE);
    let java: Comparison | null = null;
    if (javaDeploy.status === 200) {
      await check(service, '/1/functions/helloJava');
      config.log('functions: a Java function (the application\'s JVM worker, warm)');
      java = await compare(config, call('/1/functions/helloJava'), call('/1/bench/hello'), { clock: 'wall' });
    } else config.log(`functions: no Java row (${String(javaDeploy.body).slice(0, 120)})`);
    return [
      ...rows,
      comparisonRow('functions', 'POST /1/functions/fresh (deployed, keepWarm: false: a fresh QuickJS runtime per invocation) vs a host route doing the same', 'host route', fresh, null, {
        unit: 'req/s',
        note: 'wall clock; the prelude and the source parsed on every invocation',
      }),
      comparisonRow('functions', 'first call of a deployed function on a fresh service (QuickJS loaded, the source parsed) vs a warm call', 'warm call', cold, null, {
        unit: 'calls/s',
        note: `cold ${cold.detail.coldMs.toFixed(1)} ms, warm ${cold.detail.warmMs.toFixed(2)} ms (median of ${cold.detail.samples})`,
      }),
      ...(java
        ? [
            comparisonRow('functions', 'POST /1/functions/helloJava (Java, warm JVM worker of the application) vs a host route doing the same', 'host route', java, null, {
              unit: 'req/s',
              note: 'wall clock; each invocation: two pipe frames (invoke, send) and a thread of the JVM worker; compiled and started before timing',
            }),
          ]
        : []),
    ];
  } finally {
    await service.close();
    await workerService.close();
    await isolatedVmService?.close();
  }
}
