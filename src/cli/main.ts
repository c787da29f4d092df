import { guardKnownDriverCrash } from './driver-crash-guard.js';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { closeOnSignals } from '../http/host/node-server.js';
import { type ParsedArgs, UsageError, assertKnownOptions, option, parseArgs, requiredOption, withoutOption } from './args.js';
import { devApplication, extraApplications } from './dev-application.js';
import { type SchemaDescription, typesFromSchemas } from './gen-types.js';
import { banner, listenFailure, quickStartService, start, storesFor } from './serve.js';
import { MissingPackageError, StoreStartError } from './stores.js';
import { dirSink, dirSource } from './transfer/dir-endpoints.js';
import type { TransferSink, TransferSource } from './transfer/endpoints.js';
import { streamProgress, silentProgress } from './transfer/progress.js';
import { type RestClient, RestError, httpRestClient, serviceRestClient } from './transfer/rest-client.js';
import { restSink, restSource } from './transfer/rest-endpoints.js';
import { fileState, memoryState } from './transfer/state.js';
import { type TransferReport, transfer } from './transfer/transfer.js';

/** Where the CLI writes, and the environment it reads (tests pass their own). */
export interface CliIo {
  readonly stdout: { write(text: string): unknown; isTTY?: boolean };
  readonly stderr: { write(text: string): unknown; isTTY?: boolean };
  readonly env: Readonly<Record<string, string | undefined>>;
}

const HELP = `svcbase <command> [options]

Commands:
  serve      Run the server (SQLite in ./data, or SVC_DATABASE_URL / SVC_REDIS_URL): docs/cli.md
             --port N  --host H  --db FILE  --database-url URL  --redis-url URL  --functions DIR
  export     Write tables, relations and files to a folder (JSON lines)
             --out DIR  [--tables A,B]  [--no-files]  [source: this server's stores, or --from URL --app ID --master-key KEY]
  import     Load an export folder (ids, times, ACLs and relations kept; existing ids skipped)
             --in DIR  [--tables A,B]  [target: this server's stores, or --to URL --to-app ID --to-master-key KEY]
  migrate    Copy an application from any server speaking the hosted REST API, resumable
             --from URL --app ID --master-key KEY  [--brand Bmob|Svc]  [--state FILE]  [--tables A,B]  [--no-files]
             [target: this server's stores, or --to URL --to-app ID --to-master-key KEY]
  gen types  TypeScript declarations of every table's columns (docs/cli.md)
             [--out FILE]  [--tables A,B]  [source: this server's stores, or --from URL --app ID --master-key KEY]
  help       This text
  version    The package version

Common: --config FILE (a JSON object of the variables below; the environment wins)
        --json (the report as JSON on stdout)  --quiet (no progress)  --page-size N
This server's stores and keys come from the same variables as serve (SVC_DB, SVC_DATABASE_URL, SVC_APP_ID, SVC_MASTER_KEY, ...).
`;

const FLAGS = new Set(['no-files', 'json', 'quiet', 'help']);
const STORE_OPTIONS = ['db', 'database-url', 'redis-url', 'public-url'];
const COMMON = ['json', 'quiet', 'page-size', 'tables', 'no-files', ...STORE_OPTIONS];

/** Runs one command; resolves with the exit code (`serve` resolves once listening, with 0). */
export async function runCli(argv: readonly string[], given: CliIo = { stdout: process.stdout, stderr: process.stderr, env: process.env }): Promise<number> {
  const parsed = parseArgs(argv, FLAGS);
  const args = withoutOption(parsed, 'config');
  let io = given;
  try {
    const config = option(parsed, 'config');
    if (config) io = { ...given, env: { ...readConfigFile(config), ...given.env } };
    switch (args.command) {
      case 'serve':
        return await serve(args, io);
      case 'export':
        assertKnownOptions(args, [...COMMON, 'out', 'from', 'app', 'master-key', 'brand']);
        return await copy(args, io, await remoteOr(args, io, 'from'), async () => dirSink(requiredOption(args, 'out')));
      case 'import':
        assertKnownOptions(args, [...COMMON, 'in', 'to', 'to-app', 'to-master-key', 'to-brand']);
        return await copy(args, io, async () => dirSource(requiredOption(args, 'in')), await remoteOr(args, io, 'to'));
      case 'migrate': {
        assertKnownOptions(args, [...COMMON, 'from', 'app', 'master-key', 'brand', 'to', 'to-app', 'to-master-key', 'to-brand', 'state']);
        requiredOption(args, 'from');
        return await copy(args, io, await remoteOr(args, io, 'from'), await remoteOr(args, io, 'to'));
      }
      case 'gen':
        assertKnownOptions(args, ['out', 'tables', 'quiet', 'from', 'app', 'master-key', 'brand', ...STORE_OPTIONS]);
        return await genTypes(args, io);
      case 'version':
        io.stdout.write(`${packageVersion()}\n`);
        return 0;
      case undefined:
      case 'help':
        io.stdout.write(HELP);
        return 0;
      default:
        throw new UsageError(`unknown command '${args.command}'`);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`svcbase: ${error.message}\n\n${HELP}`);
      return 2;
    }
    if (error instanceof MissingPackageError || error instanceof RestError) {
      io.stderr.write(`svcbase: ${error.message}\n`);
      return 1;
    }
    io.stderr.write(`svcbase: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

async function serve(args: ParsedArgs, io: CliIo): Promise<number> {
  assertKnownOptions(args, ['port', 'host', 'db', 'database-url', 'redis-url', 'functions']);
  const port = option(args, 'port', io.env.PORT ?? '3000')!;
  const host = option(args, 'host', io.env.HOST ?? '127.0.0.1')!;
  if (!/^\d{1,5}$/.test(port) || Number(port) > 65535) throw new UsageError(`--port must be a port number, got '${port}'`);
  // A malformed SVC_EXTRA_APPS is a usage error before anything opens.
  extraApplications(io.env);
  let started;
  try {
    started = await start({
      port: Number(port),
      host,
      env: io.env,
      write: (line) => io.stdout.write(`${line}\n`),
      ...optionalString('dbFile', option(args, 'db')),
      ...optionalString('databaseUrl', option(args, 'database-url')),
      ...optionalString('redisUrl', option(args, 'redis-url')),
      ...optionalString('functionsDir', option(args, 'functions')),
    });
  } catch (error) {
    if (error instanceof MissingPackageError) throw error;
    if (error instanceof StoreStartError) {
      io.stderr.write(`svcbase: ${error.message}\n`);
      return 1;
    }
    io.stderr.write(`${listenFailure(error as NodeJS.ErrnoException, host, port)}\n`);
    return 1;
  }
  io.stdout.write(banner(started.url, started.dbFile, started.deployed, io.env));
  for (const note of started.notes) io.stdout.write(`${note}\n`);
  closeOnSignals(() => started.close());
  // Terminated PostgreSQL backends must not take the process down (driver-crash-guard.ts, D153).
  if (started.dbFile.startsWith('PostgreSQL')) guardKnownDriverCrash((line) => io.stdout.write(`${line}\n`));
  return 0;
}

/**
 * A remote server (`--from URL` with `--app`/`--master-key`, or `--to URL` with `--to-app`/`--to-master-key`),
 * else this server's own stores as `serve` would open them, served in this process.
 */
async function remoteOr(args: ParsedArgs, io: CliIo, side: 'from' | 'to'): Promise<() => Promise<TransferSource & TransferSink>> {
  const open = restClientOf(args, io, side);
  return async () => {
    const { client, close } = await open();
    return both(client, close);
  };
}

/**
 * The REST client of a remote server (`--from URL` with `--app`/`--master-key`, or `--to URL` with
 * `--to-app`/`--to-master-key`), else of this server's own stores as `serve` would open them, served
 * in this process; `close` releases what it opened.
 */
function restClientOf(args: ParsedArgs, io: CliIo, side: 'from' | 'to'): () => Promise<{ client: RestClient; close: () => Promise<void> }> {
  const url = option(args, side);
  const prefix = side === 'to' ? 'to-' : '';
  if (url) {
    if (!/^https?:\/\//.test(url)) throw new UsageError(`--${side} must be an http(s) URL`);
    const client = httpRestClient({
      baseUrl: url,
      applicationId: requiredOption(args, `${prefix}app`),
      masterKey: requiredOption(args, `${prefix}master-key`),
      brand: option(args, `${prefix}brand`, 'Bmob')!,
    });
    return async () => ({ client, close: async () => {} });
  }
  return async () => {
    const stores = storesFor({ env: io.env, ...optionalString('dbFile', option(args, 'db')), ...optionalString('databaseUrl', option(args, 'database-url')), ...optionalString('redisUrl', option(args, 'redis-url')) });
    await stores.connected();
    await stores.carryOver();
    const publicUrl = option(args, 'public-url', io.env.SVC_PUBLIC_URL ?? `http://127.0.0.1:${io.env.PORT ?? 3000}`)!;
    // Warnings only: the access log of every internal call would drown the progress.
    const service = quickStartService(stores, publicUrl, (line) => void (line.includes(' warn ') || line.includes(' error ') ? io.stderr.write(`${line}\n`) : undefined), io.env);
    const label = `this server's stores (${stores.where.startsWith('PostgreSQL') ? stores.where : `SQLite ${stores.where}`})`;
    return {
      client: serviceRestClient(service, devApplication(io.env, publicUrl), publicUrl, label),
      close: async () => {
        await service.close();
        await stores.close();
      },
    };
  };
}

/**
 * `svcbase gen types`: TypeScript declarations of every table's columns, from this server's stores or
 * `--from URL --app ID --master-key KEY`, to stdout or `--out FILE`.
 */
async function genTypes(args: ParsedArgs, io: CliIo): Promise<number> {
  if (args.positional[0] !== 'types') throw new UsageError(`gen: unknown target '${args.positional[0] ?? ''}' (svcbase gen types)`);
  const { client, close } = await restClientOf(args, io, 'from')();
  let text: string;
  try {
    const reply = await client.json('GET', '/1/schemas');
    const results = typeof reply === 'object' && reply !== null && !Array.isArray(reply) ? reply['results'] : undefined;
    if (!Array.isArray(results)) throw new RestError(200, undefined, 'GET /1/schemas answered without results');
    const tables = option(args, 'tables')?.split(',').map((name) => name.trim()).filter(Boolean);
    const schemas = (results as unknown as SchemaDescription[]).filter((schema) => !tables || tables.includes(schema.className));
    text = typesFromSchemas(schemas, client.label);
  } finally {
    await close();
  }
  const out = option(args, 'out');
  if (out) {
    writeFileSync(out, text);
    if (!args.options.has('quiet')) io.stderr.write(`svcbase: wrote ${out}\n`);
  } else io.stdout.write(text);
  return 0;
}

/** A REST endpoint that can be read from or written to; `close` releases what it opened. */
function both(client: RestClient, release: () => Promise<void>): TransferSource & TransferSink {
  const sink = restSink(client);
  return { ...restSource(client), ...sink, close: async () => release() };
}

async function copy(args: ParsedArgs, io: CliIo, openSource: () => Promise<TransferSource & Partial<TransferSink>>, openSink: () => Promise<TransferSink>): Promise<number> {
  const pageSize = Number(option(args, 'page-size', '200'));
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 1000) throw new UsageError('--page-size must be 1..1000');
  const tables = option(args, 'tables')?.split(',').map((name) => name.trim()).filter(Boolean);
  const statePath = option(args, 'state');
  const json = args.options.has('json');
  const state = statePath ? fileState(statePath) : args.command === 'migrate' ? fileState(join(process.cwd(), `.svcbase-migrate-${(option(args, 'app') ?? '').replace(/[^A-Za-z0-9_-]/g, '_')}.json`)) : memoryState();
  const source = await openSource();
  let report: TransferReport;
  try {
    const sink = await openSink();
    report = await transfer({
      source,
      sink,
      pageSize,
      files: !args.options.has('no-files'),
      state,
      progress: args.options.has('quiet') || json ? silentProgress : streamProgress(io.stderr),
      ...(tables ? { tables } : {}),
    });
  } finally {
    await source.close?.();
  }
  // A finished copy forgets its progress; an unfinished one keeps it for the next run to resume.
  if (report.complete) state.clear();
  if (json) io.stdout.write(`${JSON.stringify(report)}\n`);
  else io.stdout.write(`${report.complete ? 'complete' : 'INCOMPLETE'}: ${report.tables.length} tables, ${report.tables.reduce((sum, table) => sum + table.inserted, 0)} records copied from ${source.label}\n`);
  return report.complete ? 0 : 1;
}

/**
 * A config file: a JSON object of the same variables as the environment (`{"PORT": 8080, "SVC_DB":
 * "/srv/app.db"}`); a variable set in the environment wins over the file.
 */
function readConfigFile(path: string): Record<string, string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new UsageError(`--config ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new UsageError(`--config ${path}: not a JSON object`);
  const vars: Record<string, string> = {};
  for (const [key, value] of Object.entries(parsed)) {
    if (!/^(SVC_[A-Z0-9_]+|HOST|PORT)$/.test(key)) throw new UsageError(`--config ${path}: '${key.slice(0, 40)}' is not a setting (HOST, PORT or SVC_*; docs/cli.md)`);
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') throw new UsageError(`--config ${path}: ${key} must be a string, number or boolean`);
    vars[key] = String(value);
  }
  return vars;
}

function optionalString<K extends string>(key: K, value: string | undefined): { [P in K]?: string } {
  return value === undefined ? {} : ({ [key]: value } as { [P in K]?: string });
}

function packageVersion(): string {
  for (const up of ['../../package.json', '../package.json']) {
    try {
      return (JSON.parse(readFileSync(new URL(up, import.meta.url), 'utf8')) as { version: string }).version;
    } catch {
      // the other layout (src/cli or dist)
    }
  }
  return 'unknown';
}
