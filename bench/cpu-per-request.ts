/**
 * Measuring aid (not part of `npm run bench`): the REST servers' CPU time per request, svcbase
 * against the same-work limit, in alternated runs of a fixed number of requests (10 connections).
 * Unlike a rate, CPU per request barely moves with what else the machine runs, so small changes to
 * svcbase's own work show. With `postgres`, the PostgreSQL rows' server, and the CPU of every
 * PostgreSQL process during each run (Linux /proc) beside it.
 *
 * @example npx tsx bench/build.ts bench/postgres-rest-server.ts bench/cpu-per-request.ts && node bench/.build/cpu-per-request.mjs 1 4000 6 postgres
 * @example npx tsx bench/build.ts bench/rest-server.ts bench/cpu-per-request.ts && node bench/.build/cpu-per-request.mjs 1 4000 6
 */
import { fork } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import type { HttpWorkload } from './rest-app.js';

interface Ready {
  readonly svcPort: number;
  readonly samePort: number | null;
  readonly headers: Readonly<Record<string, string>>;
  readonly workloads: readonly HttpWorkload[];
}

const index = Number(process.argv[2] ?? 1);
const requests = Number(process.argv[3] ?? 4000);
const pairs = Number(process.argv[4] ?? 4);
const postgresRows = process.argv[5] === 'postgres';
const server = postgresRows ? './postgres-rest-server.mjs' : './rest-server.mjs';
const child = fork(fileURLToPath(new URL(server, import.meta.url)), ['10000'], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
const ready = await new Promise<Ready>((resolve) => child.once('message', resolve));
const workload = ready.workloads[index]!;
if (ready.samePort === null) throw new Error('the same-work limit is not available');

/**
 * User + system CPU of the given processes in µs (/proc counts clock ticks of 10 ms); with `named`,
 * only those whose command is that name (a process that ended meanwhile counts nothing).
 */
function cpuMicros(pids: readonly string[], named?: string): number {
  let ticks = 0;
  for (const pid of pids) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue;
    }
    if (named !== undefined && !stat.includes(`(${named})`)) continue;
    const fields = stat.split(') ')[1]!.split(' ');
    ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks * 10_000;
}
const serverCpu = () => cpuMicros([String(child.pid)]);
const postgresCpu = () => cpuMicros(readdirSync('/proc').filter((pid) => /^\d+$/.test(pid)), 'postgres');

async function run(port: number, amount: number): Promise<{ server: number; postgres: number }> {
  let next = 0;
  const server0 = serverCpu();
  const postgres0 = postgresRows ? postgresCpu() : 0;
  await autocannon({
    url: `http://127.0.0.1:${port}`,
    connections: 10,
    amount,
    headers: { ...ready.headers, ...(workload.body ? { 'content-type': 'application/json' } : {}) },
    requests: [{ method: workload.method, path: workload.paths[0]!, ...(workload.body ? { body: workload.body } : {}), setupRequest: (r) => ({ ...r, path: workload.paths[next++ % workload.paths.length]! }) }],
  });
  return { server: (serverCpu() - server0) / amount, postgres: postgresRows ? (postgresCpu() - postgres0) / amount : 0 };
}

const ports = { svcbase: ready.svcPort, limit: ready.samePort };
await run(ports.svcbase, 1000);
await run(ports.limit, 1000);
const seen = { svcbase: [] as number[], limit: [] as number[], svcbasePg: [] as number[], limitPg: [] as number[] };
for (let pair = 0; pair < pairs; pair++) {
  for (const side of pair % 2 === 0 ? (['svcbase', 'limit'] as const) : (['limit', 'svcbase'] as const)) {
    const cpu = await run(ports[side], requests);
    seen[side].push(cpu.server);
    seen[side === 'svcbase' ? 'svcbasePg' : 'limitPg'].push(cpu.postgres);
  }
}
const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;
const list = (values: readonly number[]) => values.map((v) => v.toFixed(0)).join(', ');
process.stdout.write(
  `${workload.name}: server CPU per request, svcbase ${list(seen.svcbase)} µs, limit ${list(seen.limit)} µs, limit / svcbase ${(median(seen.limit) / median(seen.svcbase)).toFixed(2)}\n` +
    (postgresRows ? `  PostgreSQL CPU per request, svcbase ${list(seen.svcbasePg)} µs, limit ${list(seen.limitPg)} µs\n` : ''),
);
child.send('stop');
await new Promise((resolve) => child.once('exit', resolve));
