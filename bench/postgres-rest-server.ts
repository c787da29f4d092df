/**
 * The servers of the PostgreSQL REST rows (bench/postgres-rest.ts), in a child process so the load
 * generator and the servers each get a core: svcbase on PostgreSQL (node:http + toNodeListener,
 * records feature, `svcbase/postgres` adapter) and the same-work limit (bench/postgres-same-work.ts)
 * on its own postgres.js client, both over one Bench table of deterministic records in a schema of
 * their own (dropped on stop), with svcbase's declared indexes (category, score), vacuumed and
 * analyzed. Each side has a pool of 10 connections.
 *
 * Every request of every workload goes once to svcbase first (it must answer the workload's
 * status); the same-work server must then answer 20 of them byte for byte as svcbase did (creates and
 * Increments: the same status, headers and reply keys, their ids and times differ), or the row is
 * reported without it.
 */
import { randomBytes } from 'node:crypto';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import postgres from 'postgres';
import { toNodeListener } from '../src/node.js';
import { postgresStorage } from '../src/postgres.js';
import { createRecordsFeature } from '../src/records/records-feature.js';
import { createService } from '../src/service.js';
import { CLASS_NAME, makeRecords } from './data.js';
import { PG_URL, pgRestWorkloads } from './postgres-rest-app.js';
import { pgSameWorkHandler } from './postgres-same-work.js';
import { type HttpWorkload, REST_APP, REST_HEADERS } from './rest-app.js';
import { seedTable } from './stores.js';

const POOL = 10;

export interface PgServerReady {
  readonly svcPort: number;
  readonly samePort: number;
  readonly schema: string;
  readonly server: string;
  readonly records: number;
  /** The objectIds GET by id and Increment use, in order (Parse's side maps them to its own). */
  readonly ids: readonly string[];
  readonly headers: Readonly<Record<string, string>>;
  readonly workloads: readonly HttpWorkload[];
}

const DROP_HEADERS = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

/** What one server answered: status, headers (less the per-connection ones) and body text. */
export async function answerOf(port: number, workload: HttpWorkload, path: string): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    method: workload.method,
    headers: { ...REST_HEADERS, ...(workload.body ? { 'content-type': 'application/json' } : {}) },
    body: workload.body,
  });
  const headers: Record<string, string> = {};
  res.headers.forEach((value, key) => {
    if (!DROP_HEADERS.has(key)) headers[key] = key === 'location' ? value.replace(/\/[^/]+$/, '/<id>').replace(/:\d+\//, ':<port>/') : value;
  });
  return { status: res.status, headers, body: await res.text() };
}

/** Null when `other` answers `path` as svcbase does (reads: the same bytes; writes: status, headers, keys); else the difference. */
async function differs(svcPort: number, otherPort: number, workload: HttpWorkload, path: string): Promise<string | undefined> {
  const ours = await answerOf(svcPort, workload, path);
  const theirs = await answerOf(otherPort, workload, path);
  const keys = (text: string) => Object.keys(JSON.parse(text) as object).join(',');
  const shape = (a: typeof ours) => JSON.stringify([a.status, Object.entries(a.headers).sort(), workload.method === 'GET' ? a.body : keys(a.body)]);
  return shape(ours) === shape(theirs) ? undefined : `the same-work server answered ${shape(theirs).slice(0, 200)} where svcbase answered ${shape(ours).slice(0, 200)}`;
}

async function main(): Promise<void> {
  const size = Number(process.argv[2] ?? 10_000);
  const schema = `svc_bench_rest_${randomBytes(4).toString('hex')}`;
  const admin = postgres(PG_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE SCHEMA "${schema}"`);
  const client = () => postgres(PG_URL, { max: POOL, onnotice: () => {}, connection: { search_path: schema, jit: 'off' } });
  const svcSql = client();
  const sameSql = client();
  const storage = postgresStorage({ sql: svcSql });
  const records = makeRecords(size, 3);
  await seedTable(storage, { namespace: REST_APP.namespace!, className: CLASS_NAME }, records);
  await admin.unsafe(`VACUUM ANALYZE "${schema}"."${REST_APP.namespace}__${CLASS_NAME}"`);
  const version = String((await admin`SHOW server_version`)[0]!['server_version']);
  const service = createService({ storage, applications: [REST_APP], features: [(ctx) => createRecordsFeature(ctx)] });
  const svcServer = createServer(toNodeListener(service));
  const svcPort = await listen(svcServer);
  const same = createServer(pgSameWorkHandler(sameSql));
  const samePort = await listen(same);

  const ids = records.filter((_, i) => i % Math.max(1, Math.floor(size / 1000)) === 0).slice(0, 1000).map((r) => r.objectId);
  const workloads: HttpWorkload[] = [];
  for (const workload of pgRestWorkloads(ids, size)) {
    let unavailable: string | undefined;
    for (const path of workload.paths.slice(0, 20)) {
      const answer = await answerOf(svcPort, workload, path);
      if (answer.status !== workload.status) {
        unavailable = `svcbase answered ${answer.status} (${answer.body.slice(0, 120)}) instead of ${workload.status}`;
        break;
      }
    }
    let sameWorkUnavailable: string | undefined;
    for (const path of unavailable ? [] : workload.paths.slice(0, 20)) {
      sameWorkUnavailable = await differs(svcPort, samePort, workload, path);
      if (sameWorkUnavailable) break;
    }
    workloads.push({ ...workload, ...(unavailable && { unavailable }), ...(sameWorkUnavailable && { sameWorkUnavailable }) });
  }

  const ready: PgServerReady = { svcPort, samePort, schema, server: version, records: size, ids, headers: REST_HEADERS, workloads };
  process.send!(ready);
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    for (const server of [svcServer, same]) {
      server.closeAllConnections();
      server.close();
    }
    await service.close().catch(() => {});
    await Promise.all([svcSql.end({ timeout: 2 }), sameSql.end({ timeout: 2 })]).catch(() => {});
    await admin.unsafe(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => {});
    await admin.end({ timeout: 2 }).catch(() => {});
    process.exit(0);
  };
  process.on('message', (message: string) => {
    if (message === 'stop') void stop();
  });
  process.on('disconnect', () => void stop());
}

await main();
