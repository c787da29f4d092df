/**
 * Profiling aid (not part of `npm run bench`): calls `service.handle()` in a loop for one REST
 * workload (no sockets), so `--cpu-prof` shows svcbase's own share of a REST row.
 *
 * @example npx tsx bench/build.ts bench/profile-handler.ts && node --cpu-prof --cpu-prof-dir=/tmp/prof bench/.build/profile-handler.mjs 3 5000
 *
 * With a third argument `postgres`, the PostgreSQL REST rows (bench/postgres-rest-app.ts) over
 * svcbase on PostgreSQL at SVCBASE_BENCH_POSTGRES, in a schema of its own dropped at the end; the
 * CPU per request then includes the driver's share (one request at a time).
 * @example node bench/.build/profile-handler.mjs 4 5000 postgres
 */
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { postgresStorage } from '../src/postgres.js';
import { createRecordsFeature } from '../src/records/records-feature.js';
import { createService, type Service } from '../src/service.js';
import { CLASS_NAME, makeRecords } from './data.js';
import { measureRate } from './harness.js';
import { PG_URL, pgRestWorkloads } from './postgres-rest-app.js';
import { type HttpWorkload, createBenchApp, REST_APP, svcRequests } from './rest-app.js';
import { seedTable } from './stores.js';

interface ProfiledApp {
  readonly service: Service;
  readonly storageName: string;
  readonly workloads: readonly HttpWorkload[];
  close(): Promise<void>;
}

async function createPgApp(size: number): Promise<ProfiledApp> {
  const schema = `svc_bench_profile_${randomBytes(4).toString('hex')}`;
  const admin = postgres(PG_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE SCHEMA "${schema}"`);
  const sql = postgres(PG_URL, { max: 10, onnotice: () => {}, connection: { search_path: schema, jit: 'off' } });
  const storage = postgresStorage({ sql });
  const records = makeRecords(size, 3);
  await seedTable(storage, { namespace: REST_APP.namespace!, className: CLASS_NAME }, records);
  await admin.unsafe(`VACUUM ANALYZE "${schema}"."${REST_APP.namespace}__${CLASS_NAME}"`);
  const service = createService({ storage, applications: [REST_APP], features: [(ctx) => createRecordsFeature(ctx)] });
  const ids = records.filter((_, i) => i % Math.max(1, Math.floor(size / 1000)) === 0).slice(0, 1000).map((r) => r.objectId);
  return {
    service,
    storageName: 'postgres',
    workloads: pgRestWorkloads(ids, size),
    async close() {
      await service.close();
      await sql.end({ timeout: 2 });
      await admin.unsafe(`DROP SCHEMA "${schema}" CASCADE`);
      await admin.end({ timeout: 2 });
    },
  };
}

const index = Number(process.argv[2] ?? 1);
const ms = Math.min(60_000, Number(process.argv[3] ?? 3000));
const app: ProfiledApp = process.argv[4] === 'postgres' ? await createPgApp(10_000) : await createBenchApp(10_000);
try {
  const workload = app.workloads[index]!;
  const requests = svcRequests(workload, 3000);
  let next = 0;
  const rate = await measureRate(() => app.service.handle(requests[next++ % requests.length]!), ms, 100_000_000);
  process.stdout.write(`${workload.name}: ${(1e6 / rate.cpu).toFixed(1)} us CPU per request (${app.storageName})\n`);
} finally {
  await app.close();
}
