/**
 * The REST rows on PostgreSQL (issue 37): GET by id, a list `where score >= x, order score, limit
 * 20`, create, Increment and a count `where category = c`, served over HTTP by svcbase on PostgreSQL
 * and by a same-work limit on the same table (bench/postgres-same-work.ts: a hand-written node:http
 * server on postgres.js issuing the SQL a PostgreSQL expert would write, checked at start-up to
 * answer byte for byte what svcbase answers). Both in one child process (bench/postgres-rest-server.ts),
 * autocannon here with 10 connections, interleaved rounds (each side first in turn). Target: svcbase
 * >= 0.8x of the limit on each row, p99 within 2x of its p99.
 *
 * Parse Server on the same PostgreSQL is not run here (see docs/performance.md for why and the
 * last side-by-side figures). Needs PostgreSQL at SVCBASE_BENCH_POSTGRES (default
 * postgres://postgres@127.0.0.1:5432/test); without it the group reports a skipped row.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { type BenchConfig, median, round3, spread } from './harness.js';
import type { PgServerReady } from './postgres-rest-server.js';
import { type ResultRow, skippedRow } from './report.js';
import { type Shot, shoot } from './rest.js';

const PG_URL = process.env.SVCBASE_BENCH_POSTGRES ?? 'postgres://postgres@127.0.0.1:5432/test';
const TARGET = 0.8;

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

function startServer(records: number): Promise<{ child: ChildProcess; ready: PgServerReady }> {
  const entry = import.meta.url.endsWith('.ts') ? './postgres-rest-server.ts' : './postgres-rest-server.mjs';
  const child = fork(fileURLToPath(new URL(entry, import.meta.url)), [String(records)], {
    execArgv: process.execArgv,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('PostgreSQL REST server did not start within 300 s')), 300_000);
    child.once('message', (ready: PgServerReady) => {
      clearTimeout(timer);
      resolve({ child, ready });
    });
    child.once('exit', (code) => reject(new Error(`PostgreSQL REST server exited early (${code})`)));
  });
}

export async function run(config: BenchConfig): Promise<ResultRow[]> {
  const unreachable = await reachable();
  if (unreachable) return [skippedRow('postgres-rest', 'PostgreSQL REST rows', `PostgreSQL at ${PG_URL} unreachable (${unreachable})`)];
  const records = config.quick ? 2_000 : 10_000;
  const seconds = config.quick ? 0.4 : 1.5;
  const rounds = config.quick ? 2 : 9;
  const { child, ready } = await startServer(records);
  const rows: ResultRow[] = [];
  try {
    for (const workload of ready.workloads) {
      if (workload.unavailable) {
        rows.push(skippedRow('postgres-rest', workload.name, workload.unavailable));
        continue;
      }
      if (workload.sameWorkUnavailable) {
        rows.push(skippedRow('postgres-rest', `${workload.name} vs the same-work limit`, workload.sameWorkUnavailable));
        continue;
      }
      config.log(`postgres-rest: ${workload.name}`);
      for (const port of [ready.svcPort, ready.samePort]) await shoot(port, workload, ready.headers, config.quick ? 0.2 : 1);
      const ours: Shot[] = [];
      const same: Shot[] = [];
      const ratios: number[] = [];
      for (let round = 0; round < rounds; round++) {
        const sides: Array<[number, Shot[]]> = round % 2 === 0 ? [[ready.svcPort, ours], [ready.samePort, same]] : [[ready.samePort, same], [ready.svcPort, ours]];
        for (const [port, into] of sides) into.push(await shoot(port, workload, ready.headers, seconds));
        ratios.push(ours[round]!.rps / same[round]!.rps);
      }
      const ratio = median(ratios);
      const bad = ours.reduce((n, s) => n + s.bad, 0) + same.reduce((n, s) => n + s.bad, 0);
      const p99 = median(ours.map((s) => s.p99));
      const sameP99 = median(same.map((s) => s.p99));
      // p99 in whole milliseconds (autocannon's resolution): within 2x, or within 1 ms of the limit's.
      const p99Ok = p99 <= Math.max(sameP99 * 2, sameP99 + 1);
      rows.push({
        group: 'postgres-rest',
        workload: `${workload.name} vs the same-work limit`,
        unit: 'req/s',
        ours: median(ours.map((s) => s.rps)),
        referenceName: 'same-work node:http on postgres.js',
        reference: median(same.map((s) => s.rps)),
        ratio,
        target: TARGET,
        pass: ratio >= TARGET && p99Ok && bad === 0,
        detail: {
          oursP50Ms: median(ours.map((s) => s.p50)),
          oursP99Ms: p99,
          referenceP99Ms: sameP99,
          p99Target: 'ours <= 2x the limit (or +1 ms)',
          oursSpread: round3(spread(ours.map((s) => s.rps))),
          referenceSpread: round3(spread(same.map((s) => s.rps))),
          oursRounds: ours.map((s) => Math.round(s.rps)),
          referenceRounds: same.map((s) => Math.round(s.rps)),
          roundRatios: ratios.map(round3),
          badResponses: bad,
          connections: 10,
          pool: 10,
          secondsPerRound: seconds,
          records: ready.records,
          server: `PostgreSQL ${ready.server}`,
        },
        note: `p99 ${p99} vs ${sameP99} ms${p99Ok ? '' : ' (above 2x)'}; PostgreSQL ${ready.server}, ${ready.records} records, pools of 10${bad > 0 ? `; ${bad} bad responses` : ''}`,
      });
    }
  } finally {
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
  return rows;
}
