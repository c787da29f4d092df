/**
 * Compiles benchmark entry points the way the package ships (esbuild, like tsup: no `keepNames`)
 * into bench/.build/*.mjs. Why not run the TypeScript under tsx: tsx compiles with `keepNames`,
 * which wraps every named closure in `__name(fn, "name")` (an Object.defineProperty per closure
 * creation, about 1 µs here), a cost the published build does not have and the JavaScript peers
 * we compare with never pay.
 *
 * Also a script for profiling aids:
 * @example npx tsx bench/build.ts bench/profile-storage.ts && node --cpu-prof bench/.build/profile-storage.mjs
 */
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
export const BUILD_DIR = join(HERE, '.build');

type EsbuildModule = typeof import('esbuild');

let esbuild: EsbuildModule | null | undefined;

/** esbuild (installed with tsup and tsx), or null when it cannot be loaded. */
export async function loadEsbuild(): Promise<EsbuildModule | null> {
  if (esbuild !== undefined) return esbuild;
  try {
    esbuild = (await import('esbuild')) as EsbuildModule;
  } catch {
    esbuild = null;
  }
  return esbuild;
}

/** `svcbase` and `svcbase/<entry>` (the examples import the package by name) bundled from src/. */
const selfReference = {
  name: 'svcbase-self-reference',
  setup(build: { onResolve(options: { filter: RegExp }, callback: (args: { path: string }) => { path: string }): void }) {
    build.onResolve({ filter: /^svcbase(\/[a-z-]+)?$/ }, (args) => ({
      path: join(HERE, '..', 'src', `${args.path === 'svcbase' ? 'index' : args.path.slice('svcbase/'.length)}.ts`),
    }));
  },
};

/**
 * Bundles `source` (TypeScript importing src/ and bench/ modules; npm packages stay external) into
 * bench/.build/<name>.mjs and returns that path. Throws with esbuild's message when a module does not
 * resolve or compile (a module still landing).
 */
export async function bundle(name: string, source: { file: string } | { contents: string }): Promise<string> {
  const built = await loadEsbuild();
  if (!built) throw new Error('esbuild is not installed');
  const outfile = join(BUILD_DIR, `${name}.mjs`);
  await built.build({
    ...('file' in source ? { entryPoints: [source.file] } : { stdin: { contents: source.contents, resolveDir: HERE, sourcefile: `${name}-entry.ts`, loader: 'ts' } }),
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    sourcemap: 'linked',
    keepNames: false,
    logLevel: 'silent',
    plugins: [selfReference],
  });
  return outfile;
}

// Run as a script only (not when bundled into a group that imports `bundle`).
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url) && basename(process.argv[1]) === 'build.ts') {
  for (const file of process.argv.slice(2)) {
    const out = await bundle(basename(file).replace(/\.ts$/, ''), { file: resolve(file) });
    process.stdout.write(`${out}\n`);
  }
}
