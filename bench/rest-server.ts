/**
 * The servers of the REST benchmark, run in a child process so the load generator (autocannon, in
 * the parent) and the server each get one of the machine's cores.
 *
 * It starts svcbase (node:http + toNodeListener, records feature, SQLite storage when it loads,
 * else memory) and a bare node:http server on 127.0.0.1. Every request the benchmark will send is
 * first sent once to svcbase; the bare server then answers each one with exactly the status,
 * headers and body bytes svcbase gave: the transport's limit for the same traffic.
 */
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ApplicationConfig } from '../src/app/application.js';
import { toNodeListener } from '../src/node.js';
import { createRecordsFeature } from '../src/records/records-feature.js';
import { createService } from '../src/service.js';
import type { SvcRequest } from '../src/http/types.js';
import type { StorageAdapter } from '../src/storage/port.js';
import { CLASS_NAME, categoryCount, makeRecords } from './data.js';
import { measureRate, median } from './harness.js';
import { openMemoryStorage, openSqliteFixture, seedTable } from './stores.js';

const REST_APP: ApplicationConfig = {
  applicationId: 'bench-app',
  restApiKey: 'bench-rest-key',
  masterKey: 'bench-master-key',
  namespace: 'bench',
};

const REST_HEADERS: Readonly<Record<string, string>> = {
  'x-svc-application-id': REST_APP.applicationId,
  'x-svc-rest-api-key': REST_APP.restApiKey,
};

/** One workload: the requests autocannon cycles through. */
export interface HttpWorkload {
  readonly name: string;
  readonly method: 'GET' | 'POST';
  readonly paths: readonly string[];
  readonly body?: string;
  /** Status svcbase must answer for the row to count. */
  readonly status: number;
  /** Why the workload cannot run yet (route not mounted, ...). */
  readonly unavailable?: string;
  /** CPU microseconds per request of `service.handle()` alone (no socket, no node:http): svcbase's own share. */
  readonly handleUs?: number;
}

export interface ServerReady {
  readonly svcPort: number;
  readonly barePort: number;
  readonly storage: string;
  readonly records: number;
  /** Credentials every request carries (the bare server ignores them). */
  readonly headers: Readonly<Record<string, string>>;
  readonly workloads: readonly HttpWorkload[];
}

interface Canned {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: Buffer;
}

const DROP_HEADERS = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);
const CREATE_BODY = JSON.stringify({ name: 'new user', category: 'c1', score: 4242, level: 3, active: true, tags: ['t1', 't2'], address: { city: 'city1', zip: '10001' } });

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

async function openStorage(): Promise<{ storage: StorageAdapter; name: string; close: () => Promise<void> }> {
  try {
    const fixture = await openSqliteFixture('rest');
    return { storage: fixture.storage, name: 'sqlite', close: () => fixture.close() };
  } catch (error) {
    const storage = await openMemoryStorage();
    return { storage, name: `memory (sqlite adapter did not load: ${(error as Error).message.split('\n')[0]})`, close: async () => storage.close() };
  }
}

/** Median CPU cost of `service.handle()` for a workload's requests, in microseconds. */
async function handlerCost(handle: (request: SvcRequest) => Promise<unknown>, workload: HttpWorkload, port: number): Promise<number> {
  const body = workload.body ? Buffer.from(workload.body) : null;
  const headers = { ...REST_HEADERS, host: `127.0.0.1:${port}`, ...(body ? { 'content-type': 'application/json', 'content-length': String(body.length) } : {}) };
  const requests: SvcRequest[] = workload.paths.map((url) => {
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
  let next = 0;
  const op = () => handle(requests[next++ % requests.length]!);
  const rounds: number[] = [];
  for (let i = 0; i < 3; i++) rounds.push((await measureRate(op, 200, 1_000_000)).cpu);
  return Math.round((1e6 / median(rounds)) * 10) / 10;
}

async function main(): Promise<void> {
  const size = Number(process.argv[2] ?? 10_000);
  const { storage, name, close } = await openStorage();
  const records = makeRecords(size, 3);
  await seedTable(storage, { namespace: REST_APP.namespace!, className: CLASS_NAME }, records);
  const service = createService({ storage, applications: [REST_APP], features: [(ctx) => createRecordsFeature(ctx)] });
  const svcServer = createServer(toNodeListener(service));
  const svcPort = await listen(svcServer);

  const canned = new Map<string, Canned>();
  const capture = async (method: string, path: string, body?: string): Promise<number> => {
    const res = await fetch(`http://127.0.0.1:${svcPort}${path}`, {
      method,
      headers: { ...REST_HEADERS, ...(body ? { 'content-type': 'application/json' } : {}) },
      body,
    });
    const headers: Record<string, string> = {};
    res.headers.forEach((value, key) => {
      if (!DROP_HEADERS.has(key)) headers[key] = value;
    });
    canned.set(`${method} ${path}`, { status: res.status, headers, body: Buffer.from(await res.arrayBuffer()) });
    return res.status;
  };

  const ids = records.filter((_, i) => i % Math.max(1, Math.floor(size / 1000)) === 0).slice(0, 1000).map((r) => r.objectId);
  const categories = categoryCount(size);
  const listPaths = Array.from({ length: Math.min(100, categories) }, (_, i) => {
    const where = encodeURIComponent(JSON.stringify({ category: `c${(i * 7) % categories}` }));
    return `/1/classes/${CLASS_NAME}?where=${where}&limit=20&order=-score`;
  });
  const workloads: HttpWorkload[] = [
    { name: 'GET /1/timestamp', method: 'GET', paths: ['/1/timestamp'], status: 200 },
    { name: 'GET /1/classes/Bench/:id', method: 'GET', paths: ids.map((id) => `/1/classes/${CLASS_NAME}/${id}`), status: 200 },
    { name: 'GET /1/classes/Bench?where={category}&order=-score&limit=20', method: 'GET', paths: listPaths, status: 200 },
    { name: 'POST /1/classes/Bench (create)', method: 'POST', paths: [`/1/classes/${CLASS_NAME}`], body: CREATE_BODY, status: 201 },
  ];
  const checked: HttpWorkload[] = [];
  for (const workload of workloads) {
    let unavailable: string | undefined;
    for (const path of workload.paths) {
      const status = await capture(workload.method, path, workload.body);
      if (status !== workload.status) {
        const sample = canned.get(`${workload.method} ${path}`)!.body.toString('utf8').slice(0, 120);
        unavailable = `svcbase answered ${status} (${sample}) instead of ${workload.status}`;
        break;
      }
    }
    checked.push(unavailable ? { ...workload, unavailable } : { ...workload, handleUs: await handlerCost(service.handle, workload, svcPort) });
  }

  const bare = createServer((req: IncomingMessage, res: ServerResponse) => {
    const answer = () => {
      const entry = canned.get(`${req.method} ${req.url}`);
      if (!entry) {
        res.writeHead(404, { 'content-type': 'application/json; charset=utf-8' });
        res.end('{"error":"not canned"}');
        return;
      }
      res.writeHead(entry.status, entry.headers);
      res.end(entry.body);
    };
    if (req.method === 'GET') answer();
    else {
      req.on('data', () => {});
      req.on('end', answer);
    }
  });
  const barePort = await listen(bare);

  const ready: ServerReady = { svcPort, barePort, storage: name, records: size, headers: REST_HEADERS, workloads: checked };
  process.send!(ready);
  process.on('message', (message: string) => {
    if (message !== 'stop') return;
    svcServer.closeAllConnections();
    bare.closeAllConnections();
    svcServer.close();
    bare.close();
    void service.close().then(close).finally(() => process.exit(0));
  });
  process.on('disconnect', () => process.exit(0));
}

await main();
