/**
 * The servers of the REST benchmark, run in a child process so the load generator (autocannon, in
 * the parent) and the server each get one of the machine's cores.
 *
 * It starts svcbase (node:http + toNodeListener, records feature, bench/rest-app.ts) and a bare
 * node:http server on 127.0.0.1. Every request the benchmark will send is first sent once to
 * svcbase; the bare server then answers each one with exactly the status, headers and body bytes
 * svcbase gave: the transport's limit for the same traffic.
 */
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toNodeListener } from '../src/node.js';
import { type HttpWorkload, REST_HEADERS, createBenchApp, handlerCost } from './rest-app.js';
import { sameWorkHandler } from './rest-same-work.js';

export interface ServerReady {
  readonly svcPort: number;
  readonly barePort: number;
  /** The same-work limit (bench/rest-same-work.ts), or null without SQLite. */
  readonly samePort: number | null;
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

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

/** What one server answered: status, headers (less the per-connection ones) and body text. */
async function answerOf(port: number, workload: HttpWorkload, path: string): Promise<{ status: number; headers: Record<string, string>; body: string }> {
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

/**
 * Null when the same-work server answers a request as svcbase does: the same bytes for reads, the
 * same status, headers and reply keys for creates (their ids and times differ); else the difference.
 */
async function sameAnswer(svcPort: number, samePort: number, workload: HttpWorkload, path: string): Promise<string | undefined> {
  const ours = await answerOf(svcPort, workload, path);
  const limit = await answerOf(samePort, workload, path);
  const keys = (text: string) => Object.keys(JSON.parse(text) as object).join(',');
  const shape = (a: typeof ours) => JSON.stringify([a.status, Object.entries(a.headers).sort(), workload.method === 'GET' && !path.startsWith('/1/timestamp') ? a.body : keys(a.body)]);
  // Writes (create, Increment) differ in their ids and times: compared by status, headers and keys.
  return shape(ours) === shape(limit) ? undefined : `the same-work server answered ${shape(limit).slice(0, 160)} where svcbase answered ${shape(ours).slice(0, 160)}`;
}

async function main(): Promise<void> {
  const app = await createBenchApp(Number(process.argv[2] ?? 10_000));
  const svcServer = createServer(toNodeListener(app.service));
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

  const checked: HttpWorkload[] = [];
  for (const workload of app.workloads) {
    let unavailable: string | undefined;
    for (const path of workload.paths) {
      const status = await capture(workload.method, path, workload.body);
      if (status !== workload.status) {
        const sample = canned.get(`${workload.method} ${path}`)!.body.toString('utf8').slice(0, 120);
        unavailable = `svcbase answered ${status} (${sample}) instead of ${workload.status}`;
        break;
      }
    }
    checked.push(unavailable ? { ...workload, unavailable } : { ...workload, handleUs: await handlerCost(app.service, workload, svcPort) });
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

  const same = app.database ? createServer(sameWorkHandler(app.database)) : null;
  const samePort = same ? await listen(same) : null;
  const workloads: HttpWorkload[] = [];
  for (const workload of checked) {
    let differs: string | undefined = samePort === null ? 'no SQLite connection' : undefined;
    for (const path of samePort !== null && !workload.unavailable ? workload.paths.slice(0, 20) : []) {
      differs = await sameAnswer(svcPort, samePort!, workload, path);
      if (differs) break;
    }
    workloads.push(differs ? { ...workload, sameWorkUnavailable: differs } : workload);
  }

  const ready: ServerReady = { svcPort, barePort, samePort, storage: app.storageName, records: app.records, headers: REST_HEADERS, workloads };
  process.send!(ready);
  process.on('message', (message: string) => {
    if (message !== 'stop') return;
    for (const server of [svcServer, bare, same]) {
      server?.closeAllConnections();
      server?.close();
    }
    void app.close().finally(() => process.exit(0));
  });
  process.on('disconnect', () => process.exit(0));
}

await main();
