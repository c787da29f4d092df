/**
 * Profiling aid (not part of `npm run bench`): starts the REST benchmark servers with `--cpu-prof`
 * and loads one workload against svcbase, so the profile shows the server side of a REST row.
 *
 * @example npx tsx bench/build.ts bench/rest-server.ts bench/profile-rest.ts && node bench/.build/profile-rest.mjs 1 5 /tmp/prof
 *
 * With a fifth argument `postgres`, the PostgreSQL REST rows' server instead (bench/postgres-rest-server.ts,
 * which needs PostgreSQL at SVCBASE_BENCH_POSTGRES):
 * @example npx tsx bench/build.ts bench/postgres-rest-server.ts bench/profile-rest.ts && node bench/.build/profile-rest.mjs 1 5 /tmp/prof postgres
 *
 * A sixth argument `same` loads the same-work limit's port of that server instead, to set the two
 * profiles side by side (both servers run in the one profiled process).
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import type { ServerReady } from './rest-server.js';

const index = Number(process.argv[2] ?? 1);
const seconds = Math.min(60, Number(process.argv[3] ?? 5));
const dir = process.argv[4] ?? '/tmp/prof';
const server = process.argv[5] === 'postgres' ? './postgres-rest-server.mjs' : './rest-server.mjs';
const child = fork(fileURLToPath(new URL(server, import.meta.url)), ['10000'], {
  execArgv: ['--cpu-prof', `--cpu-prof-dir=${dir}`],
  stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
});
const ready = await new Promise<Pick<ServerReady, 'svcPort' | 'samePort' | 'headers' | 'workloads'>>((resolve) => child.once('message', resolve));
const workload = ready.workloads[index]!;
if (process.argv[6] === 'same' && ready.samePort === null) throw new Error('the same-work limit is not available');
let next = 0;
const result = await autocannon({
  url: `http://127.0.0.1:${process.argv[6] === 'same' ? ready.samePort : ready.svcPort}`,
  connections: 10,
  duration: seconds,
  headers: { ...ready.headers, ...(workload.body ? { 'content-type': 'application/json' } : {}) },
  requests: [{ method: workload.method, path: workload.paths[0]!, ...(workload.body ? { body: workload.body } : {}), setupRequest: (r) => ({ ...r, path: workload.paths[next++ % workload.paths.length]! }) }],
});
process.stdout.write(`${workload.name}: ${Math.round(result.requests.total / result.duration)} req/s, p99 ${result.latency.p99} ms\n`);
child.send('stop');
await new Promise((resolve) => child.once('exit', resolve));
