// Completes package-lock.json with the entries `npm ci` insists on for rollup's per-platform native
// packages. The registry mirror of this workplace does not carry other platforms' builds, so
// `npm install` cannot record them and `npm ci` then refuses the lock ("Missing ... from lock file").
// Each added entry names its os/cpu/libc, so npm skips it on every other platform and never fetches
// it. Run after regenerating the lock: `node scripts/complete-lock.mjs`. See docs/decisions.md (D13).
import { readFileSync, writeFileSync } from 'node:fs';

const path = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(path, 'utf8'));
const packages = lock.packages;
let added = 0;
for (const [location, entry] of Object.entries(packages)) {
  for (const [name, spec] of Object.entries(entry.optionalDependencies ?? {})) {
    const platform = rollupPlatform(name);
    if (!platform || !/^\d+\.\d+\.\d+$/.test(spec)) continue;
    const parent = location === '' ? '' : `${location}/`;
    if (packages[`${parent}node_modules/${name}`] || packages[`node_modules/${name}`]) continue;
    // Keys in the order npm itself writes them, so a later `npm install` leaves the file unchanged.
    const { os, cpu, libc } = platform;
    packages[`node_modules/${name}`] = { version: spec, cpu, dev: entry.dev, ...(libc ? { libc } : {}), license: 'MIT', optional: true, os };
    added++;
  }
}
lock.packages = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))));
writeFileSync(path, JSON.stringify(lock, null, 2) + '\n');
process.stdout.write(`complete-lock: added ${added} platform entries\n`);

/** `@rollup/rollup-linux-arm-musleabihf` → { os: ['linux'], cpu: ['arm'], libc: ['musl'] }. */
function rollupPlatform(name) {
  const m = /^@rollup\/rollup-([a-z0-9]+)-([a-z0-9]+)(?:-([a-z]+))?$/.exec(name);
  if (!m) return null;
  const [, os, cpu, abi = ''] = m;
  const libc = abi.startsWith('gnu') ? ['glibc'] : abi.startsWith('musl') ? ['musl'] : undefined;
  return { os: [os], cpu: [cpu], ...(libc ? { libc } : {}) };
}
