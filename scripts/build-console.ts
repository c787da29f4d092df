// Builds the admin console (src/console/app) into dist/console/app.js and app.css, which the built
// package serves (src/console/console-assets.ts). Run by `npm run build` after tsup.
import { mkdirSync } from 'node:fs';
import { build } from 'esbuild';
import { CONSOLE_BUILD } from '../src/console/console-assets.js';

const outdir = new URL('../dist/console/', import.meta.url).pathname;
mkdirSync(outdir, { recursive: true });
const result = await build({ ...CONSOLE_BUILD, entryPoints: { app: new URL('../src/console/app/main.tsx', import.meta.url).pathname }, outdir, logLevel: 'warning', metafile: true });
const bytes = Object.values(result.metafile.outputs).reduce((sum, output) => sum + output.bytes, 0);
process.stdout.write(`[build-console] dist/console: ${bytes} bytes\n`);
