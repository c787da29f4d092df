/**
 * Parse Server 9 on the same PostgreSQL, for the PostgreSQL REST rows (bench/postgres-rest.ts): run in
 * a child process of its own, from bench/.parse-server (installed there at bench time with `npm
 * install --prefix`, gitignored). It serves a database of its own (dropped on stop) holding the same
 * records as svcbase's table, created through Parse's batch endpoint with the master key, with btree
 * indexes on `score` and `category` (Parse creates none for declared fields), vacuumed and analyzed.
 * Its pool is pg-promise's default, 10 connections, as svcbase's. It runs with bench/.parse-server as
 * its working directory, where Parse writes its `logs/` folder.
 */
import { randomBytes } from 'node:crypto';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import postgres from 'postgres';
import { CLASS_NAME, makeRecords } from './data.js';
import { REST_APP } from './rest-app.js';

export interface ParseReady {
  readonly port: number;
  /** objectIds of the records Parse made, in the order of `makeRecords`' sample. */
  readonly ids: readonly string[];
  readonly version: string;
}

const PG_URL = process.env.SVCBASE_BENCH_POSTGRES ?? 'postgres://postgres@127.0.0.1:5432/test';

interface ParseModule {
  readonly ParseServer: new (options: Record<string, unknown>) => { start(): Promise<unknown>; app: unknown; handleShutdown?(): Promise<void> };
}

async function main(): Promise<void> {
  const dir = process.argv[3]!;
  const size = Number(process.argv[2] ?? 10_000);
  const modules = join(dir, 'node_modules');
  const parse = (await import(pathToFileURL(join(modules, 'parse-server/lib/index.js')).href)) as ParseModule & { default?: ParseModule };
  const express = ((await import(pathToFileURL(join(modules, 'express/index.js')).href)) as { default: () => { use(path: string, app: unknown): void } & ((req: unknown, res: unknown) => void) }).default;
  const ParseServer = parse.ParseServer ?? parse.default!.ParseServer;

  const database = `svc_bench_parse_${randomBytes(4).toString('hex')}`;
  const admin = postgres(PG_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE "${database}"`);
  const url = new URL(PG_URL);
  url.pathname = `/${database}`;

  const app = express();
  const server: Server = createServer(app);
  const port = await new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
  const api = new ParseServer({
    databaseURI: url.toString(),
    appId: REST_APP.applicationId,
    masterKey: REST_APP.masterKey,
    restAPIKey: REST_APP.restApiKey,
    serverURL: `http://127.0.0.1:${port}/parse`,
    silent: true,
    logLevel: 'error',
  });
  await api.start();
  app.use('/parse', api.app);

  // The same records as svcbase's table, created one request each (Parse 9.10's batch endpoint
  // fails under Express 5 with "Cannot convert undefined or null to object"), 8 in flight; the first
  // alone, since it creates the class.
  const records = makeRecords(size, 3);
  const bodies = records.map(({ objectId: _id, createdAt: _c, updatedAt: _u, ...fields }) => JSON.stringify(fields));
  const made: string[] = new Array(bodies.length);
  const headers = { 'x-parse-application-id': REST_APP.applicationId, 'x-parse-master-key': REST_APP.masterKey, 'content-type': 'application/json' };
  let next = 0;
  const worker = async (only = Infinity) => {
    for (let n = 0; n < only && next < bodies.length; n++) {
      const at = next++;
      const res = await fetch(`http://127.0.0.1:${port}/parse/classes/${CLASS_NAME}`, { method: 'POST', headers, body: bodies[at] });
      const answer = (await res.json()) as { objectId?: string };
      if (res.status !== 201 || !answer.objectId) throw new Error(`Parse refused a seed record: ${res.status} ${JSON.stringify(answer).slice(0, 200)}`);
      made[at] = answer.objectId;
    }
  };
  await worker(1);
  await Promise.all(Array.from({ length: 8 }, () => worker()));
  const db = postgres(url.toString(), { max: 1, onnotice: () => {} });
  await db.unsafe(`CREATE INDEX IF NOT EXISTS "Bench_score" ON "${CLASS_NAME}" ("score")`);
  await db.unsafe(`CREATE INDEX IF NOT EXISTS "Bench_category" ON "${CLASS_NAME}" ("category")`);
  await db.unsafe(`VACUUM ANALYZE "${CLASS_NAME}"`);
  await db.end({ timeout: 2 });

  const version = (JSON.parse(await import('node:fs').then((fs) => fs.readFileSync(join(modules, 'parse-server/package.json'), 'utf8'))) as { version: string }).version;
  const ids = made.filter((_, i) => i % Math.max(1, Math.floor(size / 1000)) === 0).slice(0, 1000);
  const ready: ParseReady = { port, ids, version };
  process.send!(ready);
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    server.closeAllConnections();
    server.close();
    await Promise.resolve()
      .then(() => api.handleShutdown?.())
      .catch(() => {});
    await admin.unsafe(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`).catch(() => {});
    await admin.end({ timeout: 2 }).catch(() => {});
    process.exit(0);
  };
  process.on('message', (message: string) => {
    if (message === 'stop') void stop();
  });
  process.on('disconnect', () => void stop());
}

await main();
