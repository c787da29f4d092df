#!/usr/bin/env node
// The `svcbase` command (docs/cli.md). In a clone of the repository it runs the TypeScript sources
// through tsx (a dev dependency); from the published package, the build in dist/.
import { existsSync } from 'node:fs';

const sources = new URL('../src/cli/main.ts', import.meta.url);
let cli;
if (existsSync(sources)) {
  const { register } = await import('tsx/esm/api');
  register();
  cli = await import(sources.href);
} else {
  cli = await import('../dist/cli.js');
}
const code = await cli.runCli(process.argv.slice(2));
if (code !== 0) process.exitCode = code;
