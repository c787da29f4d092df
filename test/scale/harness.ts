import { type ChildProcess, fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { REDIS_URL, runPrefix } from '../redis/redis-env.js';
import { type ScaleStorageMode, loadPostgresStorage } from './storage-factory.js';
import { PG_URL, postgresAvailable } from '../postgres/pg-test-db.js';

const INSTANCE = fileURLToPath(new URL('./fixtures/instance.ts', import.meta.url));

/** What an instance reported over IPC: its address, or what a transport "delivered". */
export type InstanceMessage =
  | { type: 'ready'; instance: string; url: string }
  | { type: 'sms'; instance: string; to: string; code: string | null }
  | { type: 'mail'; instance: string; to: string; text: string }
  | { type: 'captcha'; instance: string; text: string };

export interface Instance {
  readonly name: string;
  readonly url: string;
  readonly child: ChildProcess;
}

export interface Cluster {
  readonly instances: readonly Instance[];
  /** Everything the instances delivered, in arrival order. */
  readonly inbox: InstanceMessage[];
  readonly redisPrefix: string;
  stop(): Promise<void>;
}

/**
 * The PostgreSQL the proof uses: `SVC_DATABASE_URL`, else the test database of test/postgres. Read,
 * never written to process.env: test files share workers, and the quick-start tests read that variable.
 */
export function databaseUrl(): string {
  return process.env.SVC_DATABASE_URL ?? PG_URL;
}

/** Why the storage mode cannot run here (null when it can): postgres mode before its adapter exists. */
export async function storageUnavailable(mode: ScaleStorageMode): Promise<string | null> {
  if (mode === 'sqlite') return null;
  if (!databaseUrl()) return 'SVC_SCALE_STORAGE=postgres needs SVC_DATABASE_URL';
  if (!(await loadPostgresStorage())) return 'svcbase/postgres has no postgresStorage yet (the PostgreSQL storage adapter is not built)';
  if (!(await postgresAvailable('scale'))) return `PostgreSQL at ${databaseUrl()} is unreachable`;
  return null;
}

/** Prepares the shared storage (a temp SQLite file, or a fresh PostgreSQL schema) and returns its env and cleanup. */
async function sharedStorage(mode: ScaleStorageMode): Promise<{ env: Record<string, string>; drop(): Promise<void> }> {
  if (mode === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'svc-scale-'));
    return { env: { SVC_SCALE_SQLITE_FILE: join(dir, 'app.db') }, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const url = databaseUrl();
  const schema = `svc_scale_${process.pid}_${Date.now()}`;
  const admin = postgres(url, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE SCHEMA "${schema}"`);
  return {
    env: { SVC_SCALE_PG_SCHEMA: schema },
    async drop() {
      await admin.unsafe(`DROP SCHEMA "${schema}" CASCADE`);
      await admin.end();
    },
  };
}

/** Forks `count` instance processes on one storage and one Redis, each on its own ephemeral port. */
export async function startCluster(mode: ScaleStorageMode, options: { count?: number; stores?: 'redis' | 'memory'; wechat?: object } = {}): Promise<Cluster> {
  const count = options.count ?? 2;
  const storage = await sharedStorage(mode);
  const redisPrefix = runPrefix('scale');
  const inbox: InstanceMessage[] = [];
  const instances: Instance[] = [];
  // One after another: the first creates the storage's bookkeeping tables, the second finds them.
  for (let i = 0; i < count; i++) {
    const name = String.fromCharCode(65 + i);
    const child = fork(INSTANCE, [], {
      execArgv: ['--import', 'tsx'],
      env: { ...process.env, SVC_DATABASE_URL: databaseUrl(), ...storage.env, SVC_SCALE_STORAGE: mode, SVC_REDIS_URL: REDIS_URL, SVC_SCALE_REDIS_PREFIX: redisPrefix, SVC_SCALE_INSTANCE: name, SVC_SCALE_STORES: options.stores ?? 'redis', ...(options.wechat ? { SVC_SCALE_WECHAT: JSON.stringify(options.wechat) } : {}) },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const url = await new Promise<string>((resolve, reject) => {
      child.on('message', (message: InstanceMessage) => {
        inbox.push(message);
        if (message.type === 'ready') resolve(message.url);
      });
      child.once('exit', (code) => reject(new Error(`instance ${name} exited with ${code} before it was ready`)));
    });
    instances.push({ name, url, child });
  }
  return {
    instances,
    inbox,
    redisPrefix,
    async stop() {
      await Promise.all(
        instances.map(
          ({ child }) =>
            new Promise<void>((resolve) => {
              if (child.exitCode !== null) return resolve();
              const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
              child.once('exit', () => {
                clearTimeout(timer);
                resolve();
              });
              child.send({ type: 'stop' });
            }),
        ),
      );
      await storage.drop();
    },
  };
}
