/**
 * The SQLite adapter's checkpointer (see checkpointer.ts): its own connection to the database file,
 * copying the write-ahead log back into the file every `intervalMs` with a PASSIVE checkpoint (it
 * never waits for readers or writers), so the copy and its fsync happen on this thread, not inside
 * the commit of whichever request crossed SQLite's automatic threshold.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { CheckpointWorkerData } from './checkpointer.js';
import { loadDriver } from './sqlite-driver.js';

const port = parentPort;
if (port) {
  const { file, busyTimeoutMs, driverFrom, intervalMs } = workerData as CheckpointWorkerData;
  const Database = loadDriver(driverFrom);
  const db = new Database(file, { fileMustExist: true });
  db.pragma(`busy_timeout = ${busyTimeoutMs}`);
  setInterval(() => {
    try {
      const [result] = db.pragma('wal_checkpoint(PASSIVE)') as Array<{ busy: number; log: number; checkpointed: number }>;
      if (result && result.checkpointed > 0) port.postMessage({ checkpointed: result.checkpointed, log: result.log });
    } catch (error) {
      port.postMessage({ error: error instanceof Error ? error.message : String(error) });
    }
  }, intervalMs);
  port.postMessage({ ready: true });
}
