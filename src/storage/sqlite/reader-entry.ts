import { existsSync, unlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

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

let sourceBundle: string | null | undefined;

/**
 * Running from the TypeScript sources (tests, tsx): the worker entry compiled once per process with
 * esbuild (a dev dependency of tsup and tsx) into one self-contained file; null without esbuild.
 */
function bundleSources(entry: string): string | null {
  if (sourceBundle !== undefined) return sourceBundle;
  try {
    const esbuild = createRequire(entry)('esbuild') as typeof import('esbuild');
    const outfile = join(tmpdir(), `svcbase-reader-worker-${process.pid}.mjs`);
    esbuild.buildSync({ entryPoints: [entry], outfile, bundle: true, platform: 'node', format: 'esm', target: 'node20', logLevel: 'silent' });
    process.once('exit', () => {
      try {
        unlinkSync(outfile);
      } catch {
        /* already gone */
      }
    });
    sourceBundle = outfile;
  } catch {
    sourceBundle = null;
  }
  return sourceBundle;
}

/**
 * How to start reader workers from where this module runs, or null when the worker file is not there
 * (a bundle that left it out): the built package ships `sqlite-reader-worker.js`/`.cjs` next to its
 * chunks; from the TypeScript sources the `.ts` entry is bundled once (see `bundleSources`).
 */
export function readerSpawner(): SpawnReader | null {
  // __filename exists in the CommonJS build (in an eval'd worker it is not a path), import.meta.url
  // in the ES module build and the sources.
  const here = typeof __filename === 'string' && isAbsolute(__filename) ? __filename : fileURLToPath(import.meta.url);
  const extension = /\.(c?js|mjs|ts)$/.exec(here)?.[0] ?? '.js';
  const file = here.replace(/[^/\\]+$/, `sqlite-reader-worker${extension}`);
  if (!existsSync(file)) return null;
  const entry = extension === '.ts' ? bundleSources(file) : file;
  return entry ? (workerData) => new Worker(entry, { workerData }) : null;
}
