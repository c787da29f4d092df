/**
 * Group: soak (issue 36, the last "done when"): mixed hostile load against the quick start, run as
 * users run it (`node bin/svcbase.mjs serve`, a temporary SQLite file, an ephemeral port), while a
 * well-behaved client of another application (SVC_EXTRA_APPS) does GETs by id and creates and calls
 * its own small function. Not part of the default run: `npm run bench -- --only=soak`
 * (docs/performance.md, "Soak"; settings in bench/soak-settings.ts).
 *
 * Phases: start-up and a warm-up; the well-behaved client alone (its idle p99); the same client
 * during the hostile load (allocation bombs, a function burst, a where-subscription flood with
 * writes, silent, slowloris and idle keep-alive sockets) while the server's RSS is sampled from
 * /proc; the client alone again (informational: how noisy the machine was). Rows fail when the
 * client's p99 under load passes `p99Ratio` times its idle p99 or it got a failed answer, when the
 * server's peak RSS passes its bound, when a socket outlived its limit, or when the server died.
 */
import { fork } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundle } from './build.js';
import type { BenchConfig } from './harness.js';
import type { ResultRow } from './report.js';
import type { SoakClientResult, SoakClientTask } from './soak-client.js';
import { HOSTILE_FUNCTIONS, type Lifetimes, type Stopper, type Tally, allocationBombs, functionBurst, socketPool, subscriptionFlood } from './soak-hostile.js';
import { RssSampler, startQuickStart } from './soak-server.js';
import { type SoakLoad, soakSettings } from './soak-settings.js';

/** The well-behaved client's application, served beside the dev application through SVC_EXTRA_APPS. */
const GOOD_APP = { applicationId: 'soak-good', restApiKey: 'soak-good-rest', masterKey: 'soak-good-master', secretKey: 'soak-good-secret1' } as const;
const GOOD = { 'X-Svc-Application-Id': GOOD_APP.applicationId, 'X-Svc-REST-API-Key': GOOD_APP.restApiKey };
/** The quick start's socket limits (SERVER_LIMITS, src/http/host/node-server.ts) plus the 1 s sweep and 1 s of slack, s. */
const HEAD_BOUND_S = 10 + 2;
/** keepAliveTimeoutMs 5 s + Node's 1 s grace + the sweep and slack. */
const KEEP_ALIVE_BOUND_S = 5 + 1 + 2;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const round1 = (n: number) => Math.round(n * 10) / 10;
const load = () => loadavg().map((n) => Math.round(n * 100) / 100);

async function clientEntry(): Promise<string> {
  // Bundled next to this module by the runner (bench/.build/soak-client.mjs); under tsx, bundled here.
  return import.meta.url.endsWith('.ts')
    ? bundle('soak-client', { file: fileURLToPath(new URL('./soak-client.ts', import.meta.url)) })
    : fileURLToPath(new URL('./soak-client.mjs', import.meta.url));
}

/** Runs the well-behaved client in its own process for `seconds`. */
async function wellBehaved(entry: string, base: string, ids: readonly string[], seconds: number): Promise<SoakClientResult> {
  const child = fork(entry, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const task: SoakClientTask = { base, headers: GOOD, ids, durationMs: seconds * 1000, loops: 2, pauseMs: 10, functionName: 'ping', functionEveryMs: 500 };
  const result = new Promise<SoakClientResult>((resolve, reject) => {
    child.once('message', (message: SoakClientResult) => resolve(message));
    child.once('exit', (code) => reject(new Error(`the well-behaved client exited (${code}) without a result`)));
  });
  child.send(task);
  return result;
}

async function json(base: string, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${base}${path}`, { method, headers: { ...headers, 'Content-Type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** The largest lifetime a socket pool saw, closed or still open at the end, s. */
function longest(lives: Lifetimes): number {
  return Math.max(0, ...lives.closed, ...lives.open);
}

function lifetimeDetail(lives: Lifetimes): Record<string, number> {
  const sorted = [...lives.closed].sort((a, b) => a - b);
  return {
    closedByServer: sorted.length,
    medianS: round1(sorted[sorted.length >> 1] ?? Number.NaN),
    maxClosedS: round1(sorted.at(-1) ?? 0),
    stillOpen: lives.open.length,
    oldestOpenS: round1(Math.max(0, ...lives.open)),
  };
}

export async function run(config: BenchConfig): Promise<ResultRow[]> {
  const s = soakSettings(config.quick);
  const dir = mkdtempSync(join(tmpdir(), 'svc-soak-'));
  const functionsDir = join(dir, 'functions');
  mkdirSync(functionsDir);
  for (const [name, source] of Object.entries(HOSTILE_FUNCTIONS)) writeFileSync(join(functionsDir, `${name}.js`), `${source}\n`);
  const entry = await clientEntry();
  config.log(`soak: starting the quick start (load ${load().join(' ')})`);
  const server = await startQuickStart({
    dbFile: join(dir, 'soak.db'),
    functionsDir,
    env: { SVC_EXTRA_APPS: JSON.stringify([GOOD_APP]), SVC_FILES: join(dir, 'files') },
  });
  const base = server.url;
  const port = Number(new URL(base).port);
  const rss = new RssSampler(server.child.pid!);
  rss.start();
  try {
    // The well-behaved application: its function (one module call) and records to read.
    const deployed = await json(base, 'PUT', '/1/cloudCode/ping', { ...GOOD, 'X-Svc-Master-Key': GOOD_APP.masterKey }, {
      language: 'node',
      source: 'function onRequest(q, r, m) { m.oData.find({ table: "SoakItem", limit: 1 }, function (e, d) { r.send("ok") }) }',
    });
    if (deployed.status !== 200) throw new Error(`deploying ping answered ${deployed.status} ${JSON.stringify(deployed.body)}`);
    const ids: string[] = [];
    for (let i = 0; i < 100; i++) ids.push(String((await json(base, 'POST', '/1/classes/SoakItem', GOOD, { n: i, name: `seed-${i}` })).body['objectId']));
    await wellBehaved(entry, base, ids, config.quick ? 2 : 5);
    const rssIdle = rss.now();

    config.log(`soak: idle p99 over ${s.idleSeconds} s (load ${load().join(' ')})`);
    const idle = await wellBehaved(entry, base, ids, s.idleSeconds);
    config.log(`soak: idle p99 ${idle.rest.p99} ms; hostile load for ${s.seconds} s (load ${load().join(' ')})`);

    rss.resetPeak();
    let stopping = false;
    const stop: Stopper = { stopped: () => stopping };
    const bombs: Tally = {};
    const burst: Tally = {};
    const flood: Tally = {};
    const failures: string[] = [];
    const guarded = <T>(name: string, work: Promise<T>, fallback: T) =>
      work.catch((error: unknown) => {
        failures.push(`${name}: ${error instanceof Error ? error.message : String(error)}`);
        return fallback;
      });
    const none: Lifetimes = { closed: [], open: [] };
    const on = (name: SoakLoad) => s.loads.has(name);
    const hostile = Promise.all([
      on('bombs') ? guarded('bombs', allocationBombs(base, s.bombLoops, stop, bombs), undefined) : undefined,
      on('burst') ? guarded('burst', functionBurst(base, s.burstSize, 5000, stop, burst), undefined) : undefined,
      on('flood') ? guarded('flood', subscriptionFlood(base, s.wsConnections, s.subscribesPerSecond, stop, flood), undefined) : undefined,
      on('sockets') ? guarded('silent', socketPool(port, 'silent', s.silentSockets, stop), none) : none,
      on('sockets') ? guarded('slowloris', socketPool(port, 'slowloris', s.slowlorisSockets, stop), none) : none,
      on('sockets') ? guarded('keepAlive', socketPool(port, 'keepAlive', s.keepAliveSockets, stop), none) : none,
    ]);
    const total = (tally: Tally) => Object.values(tally).reduce((a, b) => a + b, 0);
    const progress = setInterval(() => {
      config.log(`soak: RSS ${Math.round(rss.now())} MiB (peak ${Math.round(rss.peak())}), answers: bombs ${total(bombs)}, burst ${total(burst)}, flood ${total(flood)} (${flood['subscribed'] ?? 0} subscribed), load ${load().join(' ')}`);
    }, 10_000);
    const loaded = await wellBehaved(entry, base, ids, s.seconds).finally(() => clearInterval(progress));
    const loadDuring = load();
    stopping = true;
    config.log('soak: stopping the hostile load');
    const [, , , silent, slowloris, keepAlive] = await hostile;
    const peak = rss.peak();
    const aliveAfterLoad = server.alive();
    config.log(`soak: load p99 ${loaded.rest.p99} ms, RSS peak ${Math.round(peak)} MiB; idle again (load ${loadDuring.join(' ')})`);
    const after = aliveAfterLoad ? await wellBehaved(entry, base, ids, s.idleSeconds) : undefined;
    const rssAfter = rss.now();
    const alive = server.alive();

    const ratio = loaded.rest.p99 / idle.rest.p99;
    const restFailures = Object.values(loaded.rest.failures).reduce((a, b) => a + b, 0);
    const fnFailures = Object.values(loaded.functions.failures).reduce((a, b) => a + b, 0);
    const headLongest = Math.max(longest(silent), longest(slowloris));
    const keepAliveLongest = longest(keepAlive);
    const seconds = `${s.seconds} s`;
    const rows: ResultRow[] = [
      {
        group: 'soak',
        workload: `well-behaved GET/create p99 under ${seconds} of hostile load`,
        unit: 'ms',
        ours: loaded.rest.p99,
        referenceName: 'its idle p99 (same run)',
        reference: idle.rest.p99,
        ratio,
        target: s.p99Ratio,
        atMost: true,
        pass: ratio <= s.p99Ratio && restFailures === 0 && alive,
        detail: { idle: idle.rest, loaded: loaded.rest, idleAfter: after?.rest ?? null, clientLoopDelayP99Ms: { idle: idle.loopDelayP99, loaded: loaded.loopDelayP99 }, loadAverageDuring: loadDuring },
        note: `${restFailures} failed answers${after ? `; idle p99 after the load ${after.rest.p99} ms` : ''}`,
      },
      {
        group: 'soak',
        workload: "well-behaved application's own function (one module call, every 0.5 s) answered",
        unit: 'calls',
        ours: loaded.functions.count - fnFailures,
        referenceName: 'calls made',
        reference: loaded.functions.count,
        ratio: loaded.functions.count === 0 ? 0 : (loaded.functions.count - fnFailures) / loaded.functions.count,
        target: 1,
        pass: loaded.functions.count > 0 && fnFailures === 0,
        detail: { idle: idle.functions, loaded: loaded.functions },
        note: `p99 ${loaded.functions.p99} ms under load, ${idle.functions.p99} ms idle`,
      },
      {
        group: 'soak',
        workload: 'server RSS peak during the load',
        unit: 'MiB',
        ours: Math.round(peak),
        referenceName: 'documented bound',
        reference: s.rssBoundMiB,
        ratio: peak / s.rssBoundMiB,
        target: 1,
        atMost: true,
        pass: peak <= s.rssBoundMiB && aliveAfterLoad,
        detail: { idleMiB: Math.round(rssIdle), afterMiB: Math.round(rssAfter) },
        note: `idle ${Math.round(rssIdle)} MiB, ${Math.round(rssAfter)} MiB after the load`,
      },
      {
        group: 'soak',
        workload: `silent (${s.silentSockets}) and slowloris (${s.slowlorisSockets}) sockets: longest life`,
        unit: 's',
        ours: round1(headLongest),
        referenceName: 'head timeout 10 s + 2 s',
        reference: HEAD_BOUND_S,
        ratio: headLongest / HEAD_BOUND_S,
        target: 1,
        atMost: true,
        pass: on('sockets') ? headLongest <= HEAD_BOUND_S && silent.closed.length > 0 && slowloris.closed.length > 0 : null,
        detail: { silent: lifetimeDetail(silent), slowloris: lifetimeDetail(slowloris) },
      },
      {
        group: 'soak',
        workload: `idle keep-alive sockets (${s.keepAliveSockets}): longest life after the response`,
        unit: 's',
        ours: round1(keepAliveLongest),
        referenceName: 'keep-alive 5 s + 1 s grace + 2 s',
        reference: KEEP_ALIVE_BOUND_S,
        ratio: keepAliveLongest / KEEP_ALIVE_BOUND_S,
        target: 1,
        atMost: true,
        pass: on('sockets') ? keepAliveLongest <= KEEP_ALIVE_BOUND_S && keepAlive.closed.length > 0 : null,
        detail: lifetimeDetail(keepAlive),
      },
      {
        group: 'soak',
        workload: 'hostile answers (bombs, burst, flood)',
        unit: 'answers',
        ours: total(bombs) + total(burst) + total(flood),
        referenceName: '',
        reference: null,
        ratio: null,
        target: null,
        pass: failures.length === 0 ? null : false,
        detail: { bombs, burst, flood, loadFailures: failures },
        ...(failures.length > 0 ? { note: failures.join('; ').slice(0, 300) } : {}),
      },
    ];
    if (!alive) {
      rows.push({ group: 'soak', workload: 'server stayed up', unit: '', ours: 0, referenceName: '', reference: null, ratio: null, target: null, pass: false, note: server.stderrTail().slice(-300) });
    }
    return rows;
  } finally {
    rss.stop();
    const exit = await server.stop();
    config.log(`soak: the quick start exited (${exit})`);
    await pause(100);
    rmSync(dir, { recursive: true, force: true });
  }
}
