import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/** The console's browser code and styles. */
export interface ConsoleAssets {
  readonly script: string;
  readonly styles: string;
}

let cached: ConsoleAssets | null | undefined;

/**
 * The console app: built at package build time into `dist/console/` (scripts/build-console.mjs), or,
 * running from the TypeScript sources (tests, a clone), bundled once per process from `app/` with
 * esbuild (a dev dependency). Null when neither is there.
 */
export function consoleAssets(): ConsoleAssets | null {
  if (cached !== undefined) return cached;
  const here = fileURLToPath(import.meta.url);
  const built = here.replace(/[^/\\]+$/, 'console/');
  if (existsSync(`${built}app.js`)) {
    cached = { script: readFileSync(`${built}app.js`, 'utf8'), styles: readFileSync(`${built}app.css`, 'utf8') };
  } else {
    const entry = here.replace(/[^/\\]+$/, 'app/main.tsx');
    cached = existsSync(entry) ? bundleSources(entry) : null;
  }
  return cached;
}

function bundleSources(entry: string): ConsoleAssets | null {
  try {
    const esbuild = createRequire(entry)('esbuild') as typeof import('esbuild');
    const result = esbuild.buildSync({ ...CONSOLE_BUILD, entryPoints: [entry], write: false, outdir: '/console' });
    const text = (suffix: string) => result.outputFiles.find((file) => file.path.endsWith(suffix))?.text ?? '';
    return { script: text('.js'), styles: text('.css') };
  } catch {
    return null;
  }
}

/** esbuild options shared by the package build and the from-sources bundle. */
export const CONSOLE_BUILD = {
  bundle: true,
  format: 'iife',
  target: 'es2020',
  minify: true,
  jsx: 'automatic',
  jsxImportSource: 'preact',
  logLevel: 'silent',
} as const;
