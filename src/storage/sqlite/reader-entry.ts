import { isAbsolute } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { workerFile } from '../../core/worker-file.js';

/** The data a reader worker starts with. */
export interface ReaderWorkerData {
  readonly file: string;
  readonly busyTimeoutMs: number;
  /** Where the worker resolves better-sqlite3 from (the adapter's own location). */
  readonly driverFrom: string;
  /** Page cache and memory mapping, as the writer connection has them. */
  readonly tuning: { readonly cacheSizeKiB: number; readonly mmapSizeBytes: number };
}

/** Starts one reader worker. */
export type SpawnReader = (data: ReaderWorkerData) => Worker;

/**
 * How to start reader workers from where this module runs, or null when the worker file is not there
 * (a bundle that left it out): the built package ships `sqlite-reader-worker.js`/`.cjs` next to its
 * chunks; from the TypeScript sources the `.ts` entry is bundled once (core/worker-file.ts).
 */
export function readerSpawner(): SpawnReader | null {
  // __filename exists in the CommonJS build (in an eval'd worker it is not a path), import.meta.url
  // in the ES module build and the sources.
  const here = typeof __filename === 'string' && isAbsolute(__filename) ? __filename : fileURLToPath(import.meta.url);
  const entry = workerFile(here, 'sqlite-reader-worker');
  return entry ? (workerData) => new Worker(entry, { workerData }) : null;
}
