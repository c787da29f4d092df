/**
 * Profiling aid (not part of `npm run bench`): calls `service.handle()` in a loop for one REST
 * workload (no sockets), so `--cpu-prof` shows svcbase's own share of a REST row.
 *
 * @example npx tsx bench/build.ts bench/profile-handler.ts && node --cpu-prof --cpu-prof-dir=/tmp/prof bench/.build/profile-handler.mjs 3 5000
 */
import { createBenchApp, svcRequests } from './rest-app.js';
import { measureRate } from './harness.js';

const index = Number(process.argv[2] ?? 1);
const ms = Math.min(60_000, Number(process.argv[3] ?? 3000));
const app = await createBenchApp(10_000);
try {
  const workload = app.workloads[index]!;
  const requests = svcRequests(workload, 3000);
  let next = 0;
  const rate = await measureRate(() => app.service.handle(requests[next++ % requests.length]!), ms, 100_000_000);
  process.stdout.write(`${workload.name}: ${(1e6 / rate.cpu).toFixed(1)} us CPU per request (${app.storageName})\n`);
} finally {
  await app.close();
}
