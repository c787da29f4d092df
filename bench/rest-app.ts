/**
 * The svcbase application of the REST benchmark: a service with the records feature over SQLite
 * (memory when the SQLite adapter does not load), a seeded Bench table, and the workloads (the
 * requests autocannon cycles through). Shared by the benchmark's server process and profiling aids.
 */
import type Database from 'better-sqlite3';
import type { ApplicationConfig } from '../src/app/application.js';
import type { SvcRequest } from '../src/http/types.js';
import { createRecordsFeature } from '../src/records/records-feature.js';
import { type Service, createService } from '../src/service.js';
import type { StorageAdapter } from '../src/storage/port.js';
import { CLASS_NAME, SCORE_MAX, makeRecords } from './data.js';
import { measureRate, median } from './harness.js';
import { openMemoryStorage, openSqliteFixture, seedTable } from './stores.js';

export const REST_APP: ApplicationConfig = {
  applicationId: 'bench-app',
  restApiKey: 'bench-rest-key',
  masterKey: 'bench-master-key',
  namespace: 'bench',
};

export const REST_HEADERS: Readonly<Record<string, string>> = {
  'x-svc-application-id': REST_APP.applicationId,
  'x-svc-rest-api-key': REST_APP.restApiKey,
};

/** One workload: the requests autocannon cycles through. */
export interface HttpWorkload {
  readonly name: string;
  readonly method: 'GET' | 'POST' | 'PUT';
  readonly paths: readonly string[];
  readonly body?: string;
  /** Status svcbase must answer for the row to count. */
  readonly status: number;
  /** Why the workload cannot run yet (route not mounted, ...). */
  readonly unavailable?: string;
  /** CPU microseconds per request of `service.handle()` alone (no socket, no node:http): svcbase's own share. */
  readonly handleUs?: number;
  /** Why the same-work limit cannot serve this workload (no SQLite, or it answered differently). */
  readonly sameWorkUnavailable?: string;
}

export interface BenchApp {
  readonly service: Service;
  /** `sqlite`, or `memory (...)` with the reason SQLite did not load. */
  readonly storageName: string;
  readonly records: number;
  readonly workloads: readonly HttpWorkload[];
  /** The SQLite connection the service uses (the same-work limit runs on it), or null on memory. */
  readonly database: Database.Database | null;
  close(): Promise<void>;
}

const CREATE_BODY = JSON.stringify({ name: 'new user', category: 'c1', score: 4242, level: 3, active: true, tags: ['t1', 't2'], address: { city: 'city1', zip: '10001' } });

const INCREMENT_BODY = JSON.stringify({ level: { __op: 'Increment', amount: 1 } });

async function openStorage(): Promise<{ storage: StorageAdapter; name: string; database: Database.Database | null; close: () => Promise<void> }> {
  try {
    const fixture = await openSqliteFixture('rest');
    return { storage: fixture.storage, name: 'sqlite', database: fixture.db, close: () => fixture.close() };
  } catch (error) {
    const storage = await openMemoryStorage();
    return { storage, name: `memory (sqlite adapter did not load: ${(error as Error).message.split('\n')[0]})`, database: null, close: async () => storage.close() };
  }
}

/** Creates the service over a Bench table of `size` records and lists the workloads. */
export async function createBenchApp(size: number): Promise<BenchApp> {
  const { storage, name, database, close } = await openStorage();
  const records = makeRecords(size, 3);
  await seedTable(storage, { namespace: REST_APP.namespace!, className: CLASS_NAME }, records);
  const service = createService({ storage, applications: [REST_APP], features: [(ctx) => createRecordsFeature(ctx)] });
  const ids = records.filter((_, i) => i % Math.max(1, Math.floor(size / 1000)) === 0).slice(0, 1000).map((r) => r.objectId);
  // A leaderboard page: a where on the indexed score, ordered by it, 20 records. SQLite walks the
  // index and stops after 20 rows, so the row measures the REST path (parse, query, decode,
  // encode) rather than SQLite's sorting, which group 1 covers.
  const listPaths = Array.from({ length: 100 }, (_, i) => {
    const where = encodeURIComponent(JSON.stringify({ score: { $gte: Math.floor((i * SCORE_MAX) / 100) } }));
    return `/1/classes/${CLASS_NAME}?where=${where}&order=score&limit=20`;
  });
  // A count over an indexed range: SQLite counts index entries, the reply is one number.
  const countPaths = Array.from({ length: 100 }, (_, i) => {
    const where = encodeURIComponent(JSON.stringify({ score: { $gte: Math.floor((i * SCORE_MAX) / 100) } }));
    return `/1/classes/${CLASS_NAME}?where=${where}&count=1&limit=0`;
  });
  const workloads: HttpWorkload[] = [
    { name: 'GET /1/timestamp', method: 'GET', paths: ['/1/timestamp'], status: 200 },
    { name: 'GET /1/classes/Bench/:id', method: 'GET', paths: ids.map((id) => `/1/classes/${CLASS_NAME}/${id}`), status: 200 },
    { name: 'GET /1/classes/Bench?where={score>=x}&order=score&limit=20', method: 'GET', paths: listPaths, status: 200 },
    { name: 'POST /1/classes/Bench (create)', method: 'POST', paths: [`/1/classes/${CLASS_NAME}`], body: CREATE_BODY, status: 201 },
    { name: 'PUT /1/classes/Bench/:id (Increment)', method: 'PUT', paths: ids.map((id) => `/1/classes/${CLASS_NAME}/${id}`), body: INCREMENT_BODY, status: 200 },
    { name: 'GET /1/classes/Bench?where={score>=x}&count=1&limit=0 (count)', method: 'GET', paths: countPaths, status: 200 },
  ];
  return {
    service,
    storageName: name,
    records: size,
    workloads,
    database,
    async close() {
      await service.close();
      await close();
    },
  };
}

/** The plain requests of a workload, as a node:http mount would hand them to `service.handle`. */
export function svcRequests(workload: HttpWorkload, port: number): SvcRequest[] {
  const body = workload.body ? Buffer.from(workload.body) : null;
  const headers = { ...REST_HEADERS, host: `127.0.0.1:${port}`, ...(body ? { 'content-type': 'application/json', 'content-length': String(body.length) } : {}) };
  return workload.paths.map((url) => {
    const at = url.indexOf('?');
    return {
      method: workload.method,
      path: at === -1 ? url : url.slice(0, at),
      search: at === -1 ? '' : url.slice(at + 1),
      headers,
      body,
      remoteAddress: '127.0.0.1',
      baseUrl: `http://127.0.0.1:${port}`,
    };
  });
}

/** Median CPU cost of `service.handle()` for a workload's requests, in microseconds. */
export async function handlerCost(service: Service, workload: HttpWorkload, port: number): Promise<number> {
  const requests = svcRequests(workload, port);
  let next = 0;
  const op = () => service.handle(requests[next++ % requests.length]!);
  await measureRate(op, 300, 1_000_000);
  const rounds: number[] = [];
  for (let i = 0; i < 3; i++) rounds.push((await measureRate(op, 200, 1_000_000)).cpu);
  return Math.round((1e6 / median(rounds)) * 10) / 10;
}
