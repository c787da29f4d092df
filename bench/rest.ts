/**
 * The whole REST path over loopback: autocannon (in this process) against svcbase and against a
 * bare node:http server answering the same bytes (both in one child process, bench/rest-server.ts),
 * in interleaved rounds. Requests per second and p99 latency; target: at least 0.6x the bare server.
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

interface Shot {
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  readonly bad: number;
}

async function shoot(port: number, workload: HttpWorkload, headers: Readonly<Record<string, string>>, seconds: number): Promise<Shot> {
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
      await shoot(ready.svcPort, workload, ready.headers, config.quick ? 0.2 : 1);
      await shoot(ready.barePort, workload, ready.headers, config.quick ? 0.2 : 1);
      const ours: Shot[] = [];
      const bare: Shot[] = [];
      const ratios: number[] = [];
      for (let round = 0; round < rounds; round++) {
        const pair: Array<[number, Shot[]]> = [
          [ready.svcPort, ours],
          [ready.barePort, bare],
        ];
        if (round % 2 === 1) pair.reverse();
        for (const [port, into] of pair) into.push(await shoot(port, workload, ready.headers, seconds));
        ratios.push(ours[round]!.rps / bare[round]!.rps);
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
