import { existsSync, unlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const bundles = new Map<string, string | null>();

/**
 * Running from the TypeScript sources (tests, tsx): a worker entry compiled once per process with
 * esbuild (a dev dependency of tsup and tsx) into one self-contained file; null without esbuild.
 */
function bundleSources(entry: string, name: string): string | null {
  const known = bundles.get(entry);
  if (known !== undefined) return known;
  let out: string | null = null;
  try {
    const esbuild = createRequire(entry)('esbuild') as typeof import('esbuild');
    const outfile = join(tmpdir(), `svcbase-${name}-${process.pid}.mjs`);
    esbuild.buildSync({ entryPoints: [entry], outfile, bundle: true, platform: 'node', format: 'esm', target: 'node20', logLevel: 'silent' });
    process.once('exit', () => {
      try {
        unlinkSync(outfile);
      } catch {
        /* already gone */
      }
    });
    out = outfile;
  } catch {
    out = null;
  }
  bundles.set(entry, out);
  return out;
}

/**
 * The file a worker named `name` starts from, next to the module at `here` (the built package ships
 * `<name>.js`/`.cjs` beside its chunks; from the TypeScript sources the `.ts` entry is bundled once),
 * or null when it is not there (a bundle that left it out).
 */
export function workerFile(here: string, name: string): string | null {
  const extension = /\.(c?js|mjs|ts)$/.exec(here)?.[0] ?? '.js';
  const file = here.replace(/[^/\\]+$/, `${name}${extension}`);
  if (!existsSync(file)) return null;
  return extension === '.ts' ? bundleSources(file, name) : file;
}
