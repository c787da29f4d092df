/**
 * A reader worker of the SQLite adapter (see reader-pool.ts): its own read-only connection to the
 * database file (WAL, so it sees every commit made before a read starts), the query functions, and a
 * loop that runs one compiled read per message under the deadline it carries.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { registerSqliteFunctions } from '../../query/sql/sqlite-functions.js';
import { GuardedReader, type ReadRequest } from './guarded-reader.js';
import { isDeadlineError } from './read-guard.js';
import type { ReaderWorkerData } from './reader-entry.js';
import { loadDriver } from './sqlite-driver.js';

/** What the pool sends; the worker answers `{ id, value }` or `{ id, error, overBudget }`. */
export interface ReaderJob {
  readonly id: number;
  readonly request: ReadRequest;
  readonly budgetMs: number;
}

const port = parentPort;
if (port) {
  const { file, busyTimeoutMs, driverFrom, tuning } = workerData as ReaderWorkerData;
  const Database = loadDriver(driverFrom);
  const db = new Database(file, { readonly: true, fileMustExist: true });
  db.pragma(`busy_timeout = ${busyTimeoutMs}`);
  db.pragma(`cache_size = -${tuning.cacheSizeKiB}`);
  db.pragma(`mmap_size = ${tuning.mmapSizeBytes}`);
  registerSqliteFunctions(db);
  const reader = new GuardedReader(db);
  port.on('message', (job: ReaderJob) => {
    try {
      port.postMessage({ id: job.id, value: reader.run(job.request, job.budgetMs) });
    } catch (error) {
      port.postMessage({ id: job.id, overBudget: isDeadlineError(error), error: error instanceof Error ? error.message : String(error) });
    }
  });
  port.postMessage({ ready: true });
}
