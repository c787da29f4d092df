import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type OwnRedis, freePort, ownDatabase, ownRedis, until } from '../helpers/store-processes.js';
import { type TcpProxy, tcpProxy } from '../helpers/tcp-proxy.js';

export const APP_HEADERS = { 'x-svc-application-id': 'dev-app-id', 'x-svc-rest-api-key': 'dev-rest-key' } as const;
export const MASTER_HEADERS = { ...APP_HEADERS, 'x-svc-master-key': 'dev-master-key' } as const;

/** One answer, or `network` when the connection failed or was cut before an answer. */
export interface Reply {
  readonly status: number | 'network';
  readonly body: Record<string, unknown>;
  readonly started: number;
  readonly ms: number;
}

/**
 * One HTTP request on a connection of its own (no keep-alive: the round-robin proxy picks an
 * instance per connection, so each request may land on another one). Never hangs past `timeoutMs`.
 */
export function call(port: number, method: string, path: string, body?: unknown, headers: Record<string, string> = APP_HEADERS, timeoutMs = 10_000): Promise<Reply> {
  const started = performance.now();
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  return new Promise((resolve) => {
    const done = (status: number | 'network', text = '') => {
      let parsed: Record<string, unknown> = {};
      try {
        parsed = text ? (JSON.parse(text) as Record<string, unknown>) : {};
      } catch {
        parsed = { text };
      }
      resolve({ status, body: parsed, started, ms: performance.now() - started });
    };
    const req = request({ host: '127.0.0.1', port, method, path, agent: false, timeout: timeoutMs, headers: { ...headers, ...(payload ? { 'content-type': 'application/json', 'content-length': String(payload.length) } : {}) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => done(res.statusCode ?? 0, text));
      res.on('error', () => done('network'));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => done('network'));
    req.end(payload);
  });
}

/** A quick-start process (`node bin/svcbase.mjs serve`) on a fixed port, so a restart comes back where the proxy expects it. */
export interface QuickStart {
  readonly name: string;
  readonly port: number;
  /** Everything it printed (the SMS codes it "sent" among it). */
  output(): string;
  start(): Promise<number>;
  kill9(): Promise<void>;
  stop(): Promise<void>;
}

function quickStart(name: string, port: number, env: Record<string, string>): QuickStart {
  let child: ChildProcess | undefined;
  let output = '';
  return {
    name,
    port,
    output: () => output,
    async start() {
      const started = performance.now();
      const proc = spawn(process.execPath, ['bin/svcbase.mjs', 'serve'], { env: { PATH: process.env.PATH ?? '', ...env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
      child = proc;
      await new Promise<void>((resolve, reject) => {
        const seen = (chunk: Buffer) => {
          output += chunk.toString();
          if (output.includes(`svcbase listening on http://127.0.0.1:${port}`)) resolve();
        };
        proc.stdout!.on('data', seen);
        proc.stderr!.on('data', seen);
        proc.once('exit', () => reject(new Error(`${name} exited before listening:\n${output.slice(-2000)}`)));
      });
      return performance.now() - started;
    },
    async kill9() {
      const proc = child;
      if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = new Promise((resolve) => proc.once('exit', resolve));
      proc.kill('SIGKILL');
      await exited;
    },
    async stop() {
      const proc = child;
      if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = new Promise((resolve) => proc.once('exit', resolve));
      proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

export interface Cluster {
  readonly instances: readonly QuickStart[];
  readonly proxy: TcpProxy;
  readonly redis: OwnRedis;
  readonly databaseUrl: string;
  readonly databaseName: string;
  /** Answers from every instance directly (not through the proxy). */
  allReady(): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * Three quick-start instances over a PostgreSQL database and a redis-server of the suite's own,
 * behind a round-robin proxy; null when PostgreSQL is unreachable (outside CI).
 */
export async function startCluster(count = 3): Promise<Cluster | null> {
  const db = await ownDatabase('faults');
  if (!db) return null;
  const redis = await ownRedis();
  const dir = mkdtempSync(join(tmpdir(), 'svc-faults-'));
  const env = {
    HOST: '127.0.0.1',
    SVC_DATABASE_URL: db.url,
    SVC_REDIS_URL: redis.url,
    SVC_REDIS_PREFIX: `svc-faults-${randomBytes(3).toString('hex')}:`,
    SVC_FILES: join(dir, 'files'),
    SVC_FUNCTIONS_DIR: join(dir, 'no-functions'),
  };
  const instances: QuickStart[] = [];
  for (let i = 0; i < count; i++) instances.push(quickStart(String.fromCharCode(65 + i), await freePort(), env));
  // The first one alone: it creates the bookkeeping tables the others then find.
  await instances[0]!.start();
  await Promise.all(instances.slice(1).map((instance) => instance.start()));
  const proxy = await tcpProxy(instances.map((instance) => instance.port));
  const allReady = async () => (await Promise.all(instances.map((instance) => call(instance.port, 'GET', '/ready')))).every((reply) => reply.status === 200);
  await until('every instance ready', allReady, 15_000);
  return {
    instances,
    proxy,
    redis,
    databaseUrl: db.url,
    databaseName: db.name,
    allReady,
    async close() {
      await proxy.close();
      await Promise.all(instances.map((instance) => instance.stop()));
      await redis.kill();
      await db.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
