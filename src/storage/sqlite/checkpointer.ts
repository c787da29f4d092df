import { isAbsolute } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Logger } from '../../core/logger.js';
import { workerFile } from '../../core/worker-file.js';
import type { SqliteDatabase } from './database-shape.js';
import { driverBase } from './sqlite-driver.js';

/** What the checkpoint worker starts with. */
export interface CheckpointWorkerData {
  readonly file: string;
  readonly busyTimeoutMs: number;
  readonly driverFrom: string;
  readonly intervalMs: number;
}

/** SQLite's automatic checkpoint threshold while the worker runs: a backstop only, should it fall behind (pages, ~40 MiB). */
const BACKSTOP_PAGES = 10_000;

export interface Checkpointer {
  /** Pages the worker's latest checkpoint copied back, and the log's size then (0 until one ran). */
  latest(): { readonly checkpointed: number; readonly log: number };
  close(): Promise<void>;
}

/**
 * Moves write-ahead-log checkpoints off the request path: the writer connection's automatic
 * checkpoint (every 1,000 pages, inside some unlucky commit, with an fsync) is raised to a backstop,
 * and a worker thread with its own connection checkpoints PASSIVE every `intervalMs`. Durability is
 * unchanged: a commit is durable once in the log (WAL, `synchronous=NORMAL`: safe against process
 * crashes). Null (SQLite keeps checkpointing inline) for `:memory:` or without the worker file.
 */
export function startCheckpointer(db: SqliteDatabase, busyTimeoutMs: number, intervalMs: number, logger?: Logger): Checkpointer | null {
  if (db.memory !== false || typeof db.name !== 'string') return null;
  const here = typeof __filename === 'string' && isAbsolute(__filename) ? __filename : fileURLToPath(import.meta.url);
  const entry = workerFile(here, 'sqlite-checkpoint-worker');
  if (!entry) return null;
  const workerData: CheckpointWorkerData = { file: db.name, busyTimeoutMs, driverFrom: driverBase(), intervalMs };
  const worker = new Worker(entry, { workerData });
  worker.unref();
  db.pragma(`wal_autocheckpoint = ${BACKSTOP_PAGES}`);
  let latest = { checkpointed: 0, log: 0 };
  worker.on('message', (message: { error?: string; checkpointed?: number; log?: number }) => {
    if (message.error) logger?.warn('sqlite: a background checkpoint failed', { error: message.error });
    if (message.checkpointed !== undefined) latest = { checkpointed: message.checkpointed, log: message.log ?? 0 };
  });
  worker.on('error', (error) => {
    logger?.warn('sqlite: the checkpoint worker stopped; checkpoints run inline again', { error: String(error) });
    if (db.open !== false) db.pragma('wal_autocheckpoint = 1000');
  });
  return {
    latest: () => latest,
    async close() {
      await worker.terminate();
    },
  };
}
