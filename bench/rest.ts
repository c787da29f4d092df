/**
 * The whole REST path over loopback: autocannon (in this process) against svcbase, against a bare
 * node:http server answering the same bytes (the transport's ceiling; target 0.6x) and against a
 * hand-written server doing the same work on the same SQLite connection (bench/rest-same-work.ts;
 * target 0.7x and p99 within 1.5x), all in one child process (bench/rest-server.ts), in interleaved
 * rounds.
 *
 * Caveat on a 2-core machine: the load generator and the server share the two cores; autocannon
 * itself tops out near the bare server's rate, so the bare figure is partly the client's limit and
 * ratios read slightly optimistic. Both sides carry the same handicap.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { type BenchConfig, median, round3, spread } from './harness.js';
import { type ResultRow, skippedRow } from './report.js';
import type { HttpWorkload } from './rest-app.js';
import type { ServerReady } from './rest-server.js';

const CONNECTIONS = 10;

export interface Shot {
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  readonly bad: number;
}

export async function shoot(port: number, workload: HttpWorkload, headers: Readonly<Record<string, string>>, seconds: number): Promise<Shot> {
  let next = 0;
  const paths = workload.paths;
  const result = await autocannon({
    url: `http://127.0.0.1:${port}`,
    connections: CONNECTIONS,
    pipelining: 1,
    sampleInt: 100,
    duration: seconds,
    headers: { ...headers, ...(workload.body ? { 'content-type': 'application/json' } : {}) },
    requests: [
      {
        method: workload.method,
        path: paths[0]!,
        ...(workload.body ? { body: workload.body } : {}),
        setupRequest: (request) => ({ ...request, path: paths[next++ % paths.length]! }),
      },
    ],
  });
  const bad = result.errors + result.timeouts + result.non2xx;
  return { rps: result.requests.total / result.duration, p50: result.latency.p50, p99: result.latency.p99, bad };
}

function startServer(records: number): Promise<{ child: ChildProcess; ready: ServerReady }> {
  // Bundled next to this module (bench/.build/rest-server.mjs) or, under tsx, the TypeScript source.
  const entry = import.meta.url.endsWith('.ts') ? './rest-server.ts' : './rest-server.mjs';
  const child = fork(fileURLToPath(new URL(entry, import.meta.url)), [String(records)], {
    execArgv: process.execArgv,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('REST server did not start within 120 s')), 120_000);
    child.once('message', (ready: ServerReady) => {
      clearTimeout(timer);
      resolve({ child, ready });
    });
    child.once('exit', (code) => reject(new Error(`REST server exited early (${code})`)));
  });
}

export async function run(config: BenchConfig): Promise<ResultRow[]> {
  const records = config.quick ? 2_000 : 10_000;
  const seconds = config.quick ? 0.4 : 1.5;
  const rounds = config.quick ? 2 : 9;
  const { child, ready } = await startServer(records);
  const rows: ResultRow[] = [];
  try {
    for (const workload of ready.workloads) {
      if (workload.unavailable) {
        rows.push(skippedRow('rest', workload.name, workload.unavailable));
        continue;
      }
      config.log(`rest: ${workload.name}`);
      const samePort = workload.sameWorkUnavailable ? null : ready.samePort;
      for (const port of [ready.svcPort, ready.barePort, samePort]) if (port !== null) await shoot(port, workload, ready.headers, config.quick ? 0.2 : 1);
      const ours: Shot[] = [];
      const bare: Shot[] = [];
      const same: Shot[] = [];
      const ratios: number[] = [];
      const sameRatios: number[] = [];
      for (let round = 0; round < rounds; round++) {
        const sides: Array<[number, Shot[]]> = [
          [ready.svcPort, ours],
          [ready.barePort, bare],
          ...(samePort !== null ? [[samePort, same] as [number, Shot[]]] : []),
        ];
        // Each side goes first in turn.
        for (let i = 0; i < round % sides.length; i++) sides.push(sides.shift()!);
        for (const [port, into] of sides) into.push(await shoot(port, workload, ready.headers, seconds));
        ratios.push(ours[round]!.rps / bare[round]!.rps);
        if (samePort !== null) sameRatios.push(ours[round]!.rps / same[round]!.rps);
      }
      const ratio = median(ratios);
      const bad = ours.reduce((n, s) => n + s.bad, 0);
      rows.push({
        group: 'rest',
        workload: workload.name,
        unit: 'req/s',
        ours: median(ours.map((s) => s.rps)),
        referenceName: 'bare node:http',
        reference: median(bare.map((s) => s.rps)),
        ratio,
        target: 0.6,
        pass: ratio >= 0.6 && bad === 0,
        detail: {
          oursP50Ms: median(ours.map((s) => s.p50)),
          oursP99Ms: median(ours.map((s) => s.p99)),
          referenceP99Ms: median(bare.map((s) => s.p99)),
          oursSpread: round3(spread(ours.map((s) => s.rps))),
          referenceSpread: round3(spread(bare.map((s) => s.rps))),
          oursRounds: ours.map((s) => Math.round(s.rps)),
          referenceRounds: bare.map((s) => Math.round(s.rps)),
          badResponses: bad,
          connections: CONNECTIONS,
          secondsPerRound: seconds,
          storage: ready.storage,
          records: ready.records,
          handleOnlyUs: workload.handleUs,
          bareUsPerRequest: Math.round((1e6 / median(bare.map((s) => s.rps))) * 10) / 10,
        },
        note:
          `p50/p99 ${median(ours.map((s) => s.p50))}/${median(ours.map((s) => s.p99))} ms vs ${median(bare.map((s) => s.p50))}/${median(bare.map((s) => s.p99))} ms; service.handle() alone ${workload.handleUs ?? '?'} us/request; ` +
          `${ready.storage} storage, ${ready.records} records${bad > 0 ? `; ${bad} bad responses` : ''}`,
      });
      if (workload.sameWorkUnavailable) {
        rows.push(skippedRow('rest', `${workload.name} vs the same-work limit`, workload.sameWorkUnavailable));
        continue;
      }
      const sameRatio = median(sameRatios);
      const p99 = median(ours.map((s) => s.p99));
      const sameP99 = median(same.map((s) => s.p99));
      // p99 in whole milliseconds (autocannon's resolution): within 1.5x, or within 1 ms of the limit's.
      const p99Ok = p99 <= Math.max(sameP99 * 1.5, sameP99 + 1);
      rows.push({
        group: 'rest',
        workload: `${workload.name} vs the same-work limit`,
        unit: 'req/s',
        ours: median(ours.map((s) => s.rps)),
        referenceName: 'same-work node:http',
        reference: median(same.map((s) => s.rps)),
        ratio: sameRatio,
        target: 0.7,
        pass: sameRatio >= 0.7 && p99Ok && bad === 0,
        detail: {
          oursP99Ms: p99,
          referenceP99Ms: sameP99,
          p99Target: 'ours <= 1.5x the limit (or +1 ms)',
          oursRounds: ours.map((s) => Math.round(s.rps)),
          referenceRounds: same.map((s) => Math.round(s.rps)),
          referenceSpread: round3(spread(same.map((s) => s.rps))),
        },
        note: `p99 ${p99} vs ${sameP99} ms${p99Ok ? '' : ' (above 1.5x)'}; the limit checks the keys, parses, validates, runs one prepared statement on the same connection and encodes the same bytes (bench/rest-same-work.ts)`,
      });
    }
  } finally {
    child.send('stop');
    await new Promise((resolve) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        resolve(undefined);
      }, 5000);
      child.once('exit', () => {
        clearTimeout(timer);
        resolve(undefined);
      });
    });
  }
  return rows;
}
