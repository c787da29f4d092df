/**
 * The REST rows on PostgreSQL (issue 37): GET by id, a list `where score >= x, order score, limit
 * 20`, create, Increment and a count `where category = c`, served over HTTP by svcbase on PostgreSQL
 * and by a same-work limit on the same table (bench/postgres-same-work.ts: a hand-written node:http
 * server on postgres.js issuing the SQL a PostgreSQL expert would write, checked at start-up to
 * answer byte for byte what svcbase answers). Both in one child process (bench/postgres-rest-server.ts),
 * autocannon here with 10 connections, interleaved rounds (each side first in turn). Target: svcbase
 * >= 0.8x of the limit on each row, p99 within 2x of its p99.
 *
 * Parse Server 9 on the same PostgreSQL (bench/parse-rest-server.ts, its own process and database,
 * the same records, btree indexes on score and category) joins the rounds when it can be installed:
 * `npm install --prefix bench/.parse-server parse-server@9` at the first run (gitignored), or the Parse
 * rows are skipped with the reason. Target: svcbase >= 2x Parse on each row. Parse's answers carry the
 * same data in Parse's encoding (ISO dates, its own objectIds), so only their status is checked.
 * Needs PostgreSQL at SVCBASE_BENCH_POSTGRES (default postgres://postgres@127.0.0.1:5432/test);
 * without it the group reports a skipped row.
 */
import { type ChildProcess, fork, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { type BenchConfig, median, round3, spread } from './harness.js';
import type { ParseReady } from './parse-rest-server.js';
import type { PgServerReady } from './postgres-rest-server.js';
import type { HttpWorkload } from './rest-app.js';
import { type ResultRow, skippedRow } from './report.js';
import { type Shot, shoot } from './rest.js';

const PG_URL = process.env.SVCBASE_BENCH_POSTGRES ?? 'postgres://postgres@127.0.0.1:5432/test';
const TARGET = 0.8;
const PARSE_TARGET = 2;

async function reachable(): Promise<string | null> {
  const probe = postgres(PG_URL, { max: 1, connect_timeout: 2, onnotice: () => {} });
  try {
    await probe`SELECT 1`;
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    await probe.end({ timeout: 1 }).catch(() => {});
  }
}

/** Forks a server module bundled next to this one (or, under tsx, its TypeScript source) and waits for its ready message. */
function startChild<T>(name: string, args: string[], seconds: number, cwd?: string): Promise<{ child: ChildProcess; ready: T }> {
  const entry = import.meta.url.endsWith('.ts') ? `./${name}.ts` : `./${name}.mjs`;
  const child = fork(fileURLToPath(new URL(entry, import.meta.url)), args, { execArgv: process.execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'], ...(cwd && { cwd }) });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start within ${seconds} s`)), seconds * 1000);
    child.once('message', (ready: T) => {
      clearTimeout(timer);
      resolve({ child, ready });
    });
    child.once('exit', (code) => reject(new Error(`${name} exited early (${code})`)));
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  child.send('stop');
  await new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve(undefined);
    }, 10_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(undefined);
    });
  });
}

/** bench/.parse-server with parse-server 9 in it (installed now when missing), or why not. */
function parseServerDir(): { dir: string } | { error: string } {
  const dir = join(dirname(fileURLToPath(import.meta.url)), import.meta.url.endsWith('.ts') ? '.parse-server' : '../.parse-server');
  if (existsSync(join(dir, 'node_modules/parse-server/package.json'))) return { dir };
  mkdirSync(dir, { recursive: true });
  const install = spawnSync('npm', ['install', '--prefix', dir, 'parse-server@9', '--no-audit', '--no-fund'], { encoding: 'utf8', timeout: 600_000 });
  if (install.status === 0 && existsSync(join(dir, 'node_modules/parse-server/package.json'))) return { dir };
  return { error: `npm install parse-server@9 failed (${install.error?.message ?? `exit ${install.status}`}: ${(install.stderr ?? '').trim().split('\n').slice(-2).join(' ').slice(0, 200)})` };
}

/** A workload as Parse Server takes it: its mount, its objectIds. */
function parseWorkload(workload: HttpWorkload, svcIds: readonly string[], parseIds: readonly string[]): HttpWorkload {
  const byId = new Map(svcIds.map((id, i) => [id, parseIds[i]!]));
  const paths = workload.paths.map((path) => path.replace(/^\/1\//, '/parse/').replace(/\/([A-Za-z0-9]{10})$/, (whole, id: string) => (byId.has(id) ? `/${byId.get(id)}` : whole)));
  return { ...workload, paths, status: workload.status };
}

const PARSE_HEADERS = (headers: Readonly<Record<string, string>>) => ({
  'x-parse-application-id': headers['x-svc-application-id']!,
  'x-parse-rest-api-key': headers['x-svc-rest-api-key']!,
});

export async function run(config: BenchConfig): Promise<ResultRow[]> {
  const unreachable = await reachable();
  if (unreachable) return [skippedRow('postgres-rest', 'PostgreSQL REST rows', `PostgreSQL at ${PG_URL} unreachable (${unreachable})`)];
  const records = config.quick ? 2_000 : 10_000;
  const seconds = config.quick ? 0.4 : 1.5;
  const rounds = config.quick ? 2 : 9;
  const { child, ready } = await startChild<PgServerReady>('postgres-rest-server', [String(records)], 300);
  let parse: { child: ChildProcess; ready: ParseReady } | { error: string };
  // A quick run's group has 60 s: Parse Server's start and seeding alone take about that long here.
  const where = config.quick ? { error: 'not in a --quick run (its start and seeding take about a minute)' } : parseServerDir();
  if ('error' in where) parse = where;
  else parse = await startChild<ParseReady>('parse-rest-server', [String(records), where.dir], 600, where.dir).catch((error: unknown) => ({ error: `Parse Server did not start: ${error instanceof Error ? error.message : String(error)}` }));
  const rows: ResultRow[] = [];
  try {
    for (const workload of ready.workloads) {
      if (workload.unavailable) {
        rows.push(skippedRow('postgres-rest', workload.name, workload.unavailable));
        continue;
      }
      config.log(`postgres-rest: ${workload.name}`);
      const sides: Side[] = [{ name: 'svcbase', port: ready.svcPort, workload, headers: ready.headers, shots: [] }];
      if (workload.sameWorkUnavailable) rows.push(skippedRow('postgres-rest', `${workload.name} vs the same-work limit`, workload.sameWorkUnavailable));
      else sides.push({ name: 'same', port: ready.samePort, workload, headers: ready.headers, shots: [] });
      let parseSkip = 'error' in parse ? parse.error : undefined;
      if (!('error' in parse)) {
        const mapped = parseWorkload(workload, ready.ids, parse.ready.ids);
        const side: Side = { name: 'parse', port: parse.ready.port, workload: mapped, headers: PARSE_HEADERS(ready.headers), shots: [] };
        parseSkip = await parseAnswers(side);
        if (!parseSkip) sides.push(side);
      }
      if (parseSkip) rows.push(skippedRow('postgres-rest', `${workload.name} vs Parse Server 9`, parseSkip));
      for (const side of sides) await shoot(side.port, side.workload, side.headers, config.quick ? 0.2 : 1);
      for (let round = 0; round < rounds; round++) {
        // Each side goes first in turn.
        const order = sides.map((_, i) => sides[(i + round) % sides.length]!);
        for (const side of order) side.shots.push(await shoot(side.port, side.workload, side.headers, seconds));
      }
      const ours = sides[0]!;
      for (const other of sides.slice(1)) rows.push(comparison(workload, ours, other, seconds, ready, 'error' in parse ? null : parse.ready.version));
    }
  } finally {
    await stopChild(child);
    if (!('error' in parse)) await stopChild(parse.child);
  }
  return rows;
}

interface Side {
  readonly name: 'svcbase' | 'same' | 'parse';
  readonly port: number;
  readonly workload: HttpWorkload;
  readonly headers: Readonly<Record<string, string>>;
  readonly shots: Shot[];
}

/** Null when Parse answers the workload's first 20 requests with svcbase's status; else why not. */
async function parseAnswers(side: Side): Promise<string | undefined> {
  for (const path of side.workload.paths.slice(0, 20)) {
    const res = await fetch(`http://127.0.0.1:${side.port}${path}`, {
      method: side.workload.method,
      headers: { ...side.headers, ...(side.workload.body ? { 'content-type': 'application/json' } : {}) },
      body: side.workload.body,
    });
    const text = await res.text();
    if (res.status !== side.workload.status) return `Parse Server answered ${res.status} (${text.slice(0, 120)}) instead of ${side.workload.status}`;
  }
  return undefined;
}

function comparison(workload: HttpWorkload, ours: Side, other: Side, seconds: number, ready: PgServerReady, parseVersion: string | null): ResultRow {
  const parse = other.name === 'parse';
  const target = parse ? PARSE_TARGET : TARGET;
  const ratios = ours.shots.map((shot, i) => shot.rps / other.shots[i]!.rps);
  const ratio = median(ratios);
  const bad = ours.shots.reduce((n, s) => n + s.bad, 0) + other.shots.reduce((n, s) => n + s.bad, 0);
  const p99 = median(ours.shots.map((s) => s.p99));
  const otherP99 = median(other.shots.map((s) => s.p99));
  // p99 in whole milliseconds (autocannon's resolution): within 2x of the limit's, or within 1 ms.
  const p99Ok = parse || p99 <= Math.max(otherP99 * 2, otherP99 + 1);
  return {
    group: 'postgres-rest',
    workload: `${workload.name} vs ${parse ? 'Parse Server 9' : 'the same-work limit'}`,
    unit: 'req/s',
    ours: median(ours.shots.map((s) => s.rps)),
    referenceName: parse ? `Parse Server ${parseVersion}, same PostgreSQL` : 'same-work node:http on postgres.js',
    reference: median(other.shots.map((s) => s.rps)),
    ratio,
    target,
    pass: ratio >= target && p99Ok && bad === 0,
    detail: {
      oursP50Ms: median(ours.shots.map((s) => s.p50)),
      oursP99Ms: p99,
      referenceP99Ms: otherP99,
      ...(parse ? {} : { p99Target: 'ours <= 2x the limit (or +1 ms)' }),
      oursSpread: round3(spread(ours.shots.map((s) => s.rps))),
      referenceSpread: round3(spread(other.shots.map((s) => s.rps))),
      oursRounds: ours.shots.map((s) => Math.round(s.rps)),
      referenceRounds: other.shots.map((s) => Math.round(s.rps)),
      roundRatios: ratios.map(round3),
      badResponses: bad,
      connections: 10,
      pool: 10,
      secondsPerRound: seconds,
      records: ready.records,
      server: `PostgreSQL ${ready.server}`,
    },
    note: `p99 ${p99} vs ${otherP99} ms${p99Ok ? '' : ' (above 2x)'}; PostgreSQL ${ready.server}, ${ready.records} records, pools of 10${bad > 0 ? `; ${bad} bad responses` : ''}`,
  };
}
