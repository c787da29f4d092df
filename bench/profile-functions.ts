/**
 * Profiling aid (not part of `npm run bench`): calls a deployed function through `service.handle()`
 * one call at a time (or `inFlight` at once) for a while, so `--cpu-prof` shows the main thread's
 * and the sandbox workers' shares of a deployed call. Arguments: `worker` (every invocation on a
 * worker, `deployed.inline: false`), `inline` (the default runtime) or `isolated-vm` (inline in V8;
 * run node with `--no-node-snapshot`), milliseconds, calls in flight.
 * Prints the wall time, the process's CPU and the main thread's CPU (Linux) per call.
 *
 * @example npx tsx bench/build.ts bench/profile-functions.ts src/functions/sandbox/functions-sandbox-worker.ts && node --cpu-prof --cpu-prof-dir=/tmp/prof bench/.build/profile-functions.mjs worker 5000 1
 */
import { readFileSync } from 'node:fs';
import { BODY_TEXT, DEPLOYED_SOURCE, HEADERS, deploy, functionsBenchService } from './functions-app.js';

const mode = process.argv[2] === 'inline' || process.argv[2] === 'isolated-vm' ? process.argv[2] : 'worker';
const ms = Math.min(60_000, Number(process.argv[3] ?? 3000));
const inFlight = Math.max(1, Number(process.argv[4] ?? 1));
/** This thread's CPU time in µs (Linux; 10 ms resolution), or NaN elsewhere. */
function threadCpuUs(): number {
  try {
    const fields = readFileSync('/proc/thread-self/stat', 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  } catch {
    return Number.NaN;
  }
}

const service = functionsBenchService({ inline: mode === 'isolated-vm' ? 'isolated-vm' : mode === 'inline' });
const body = new TextEncoder().encode(BODY_TEXT);
try {
  const put = await deploy(service, 'helloDeployed', 'node', DEPLOYED_SOURCE);
  if (put.status !== 200) throw new Error(`deploy answered ${put.status}`);
  const call = () => service.handle({ method: 'POST', path: '/1/functions/helloDeployed', search: '', headers: HEADERS, body });
  const first = await call();
  if (first.status !== 200) throw new Error(`call answered ${first.status} ${String(first.body)}`);
  const cpu = process.cpuUsage();
  const mainCpu = threadCpuUs();
  const started = performance.now();
  let calls = 0;
  while (performance.now() - started < ms) {
    await Promise.all(Array.from({ length: inFlight }, call));
    calls += inFlight;
  }
  const wall = performance.now() - started;
  const used = process.cpuUsage(cpu);
  const mainUs = threadCpuUs() - mainCpu;
  process.stdout.write(`${mode}, ${inFlight} in flight: ${((wall * 1000) / calls).toFixed(1)} us wall per call, ${((used.user + used.system) / calls).toFixed(1)} us process CPU per call, ${(mainUs / calls).toFixed(1)} us main-thread CPU per call, ${calls} calls\n`);
} finally {
  await service.close();
}
