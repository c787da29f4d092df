/**
 * Parse Server 9 on the same PostgreSQL, for the PostgreSQL REST rows (bench/postgres-rest.ts): run in
 * a child process of its own, from bench/.parse-server (installed there at bench time with `npm
 * install --prefix`, gitignored). It serves a database of its own (dropped on stop) holding the same
 * records as svcbase's table, created through Parse's batch endpoint with the master key, with btree
 * indexes on `score` and `category` (Parse creates none for declared fields), vacuumed and analyzed.
 * Its pool is pg-promise's default, 10 connections, as svcbase's.
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

  // The same records as svcbase's table, through the batch endpoint (50 per batch, 4 batches at a time).
  const records = makeRecords(size, 3);
  const bodies = records.map(({ objectId: _id, createdAt: _c, updatedAt: _u, ...fields }) => fields);
  const made: string[] = new Array(bodies.length);
  const headers = { 'x-parse-application-id': REST_APP.applicationId, 'x-parse-master-key': REST_APP.masterKey, 'content-type': 'application/json' };
  const batches: number[] = [];
  for (let at = 0; at < bodies.length; at += 50) batches.push(at);
  const worker = async () => {
    for (let at = batches.shift(); at !== undefined; at = batches.shift()) {
      const requests = bodies.slice(at, at + 50).map((body) => ({ method: 'POST', path: `/parse/classes/${CLASS_NAME}`, body }));
      const res = await fetch(`http://127.0.0.1:${port}/parse/batch`, { method: 'POST', headers, body: JSON.stringify({ requests }) });
      const answers = (await res.json()) as Array<{ success?: { objectId: string }; error?: unknown }>;
      answers.forEach((answer, i) => {
        if (!answer.success) throw new Error(`Parse refused a seed record: ${JSON.stringify(answer.error ?? answers).slice(0, 200)}`);
        made[at + i] = answer.success.objectId;
      });
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
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
    await api.handleShutdown?.().catch(() => {});
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
