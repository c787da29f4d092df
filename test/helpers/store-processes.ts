import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import postgres from 'postgres';

/** A free loopback TCP port (the OS picks it; another process could take it before use, rarely). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Polls `probe` until it returns true, failing after `ms` (a condition with a deadline, not a sleep). */
export async function until(what: string, probe: () => Promise<boolean> | boolean, ms = 10_000, everyMs = 50): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await Promise.resolve().then(probe).catch(() => false)) return Date.now() - started;
    if (Date.now() - started > ms) throw new Error(`${what}: not true within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** A redis-server of the test's own on a free port, which the test may kill and start again on that port. */
export interface OwnRedis {
  readonly port: number;
  readonly url: string;
  /** kill -9 (no shutdown save: nothing is persisted, a restart starts empty). */
  kill(): Promise<void>;
  start(): Promise<void>;
}

export async function ownRedis(): Promise<OwnRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const ping = () =>
    new Promise<boolean>((resolve) => {
      const probe = spawn('redis-cli', ['-p', String(port), 'ping'], { stdio: ['ignore', 'pipe', 'ignore'] });
      let out = '';
      probe.stdout.on('data', (chunk) => (out += chunk));
      probe.once('close', () => resolve(out.includes('PONG')));
    });
  const self: OwnRedis = {
    port,
    url: `redis://127.0.0.1:${port}`,
    async start() {
      child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
      await until(`redis-server on ${port}`, ping, 10_000);
    },
    async kill() {
      const running = child;
      if (!running || running.exitCode !== null) return;
      const exited = new Promise((resolve) => running.once('exit', resolve));
      running.kill('SIGKILL');
      await exited;
    },
  };
  await self.start();
  return self;
}

/** The PostgreSQL the tests use: SVCBASE_TEST_POSTGRES or the local server's `test` database (trust auth). */
export const POSTGRES_URL = process.env.SVCBASE_TEST_POSTGRES ?? 'postgres://postgres@127.0.0.1:5432/test';

/** A database of the test's own (the quick start keeps its tables in fixed schemas), dropped by `drop()`; null when PostgreSQL is unreachable outside CI. */
export async function ownDatabase(suite: string): Promise<{ readonly url: string; readonly name: string; drop(): Promise<void> } | null> {
  const admin = postgres(POSTGRES_URL, { max: 1, connect_timeout: 2, onnotice: () => {} });
  const name = `svc_${suite.replace(/\W/g, '_')}_${process.pid}_${randomBytes(3).toString('hex')}`;
  try {
    await admin.unsafe(`CREATE DATABASE "${name}"`);
  } catch (error) {
    await admin.end({ timeout: 1 });
    if (process.env.CI === 'true') throw error;
    console.warn(`!! ${suite}: PostgreSQL at ${POSTGRES_URL} is unreachable (${String(error)}): SKIPPING`);
    return null;
  }
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    async drop() {
      await admin.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.end({ timeout: 2 });
    },
  };
}
