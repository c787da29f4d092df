// The tarball `npm pack` makes from a fresh clone (the files git tracks, no dist/: only the package's
// `prepack` build can make one) installs into a new ESM project and a new CommonJS project, and the
// README's "Use it in your server" example type-checks in each under moduleResolution node, node16 and
// bundler. Both builds also load at run time. Usage: node scripts/check-tarball.mjs
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const require = createRequire(join(root, 'package.json'));
const tsc = require.resolve('typescript/bin/tsc');
const versionOf = (name) => JSON.parse(readFileSync(require.resolve(`${name}/package.json`), 'utf8')).version;
const run = (cmd, args, cwd) => execFileSync(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });

const example = /## Use it in your server\s+```ts\n([\s\S]*?)```/.exec(readFileSync(join(root, 'README.md'), 'utf8'))?.[1];
if (!example) throw new Error('[check-tarball] README.md has no "Use it in your server" ts block');

const COMPILER = {
  node: { module: 'commonjs', moduleResolution: 'node' },
  node16: { module: 'node16', moduleResolution: 'node16' },
  bundler: { module: 'esnext', moduleResolution: 'bundler' },
};
const FLAVOURS = {
  esm: { type: 'module', load: `import('svcbase').then(async (m) => { await import('svcbase/node'); if (typeof m.createService !== 'function') process.exit(1); })` },
  cjs: { type: 'commonjs', load: `const m = require('svcbase'); require('fs').statSync(require('path').join(require('path').dirname(require.resolve('svcbase/package.json')), 'assets/fonts/DejaVuSans-Bold.ttf')); require('svcbase/node'); if (typeof m.createService !== 'function') process.exit(1); try { require('svcbase/testing'); process.exit(1); } catch (e) { if (!/ESM-only/.test(e.message)) throw e; }` },
};

/**
 * A fresh clone of the working tree in `dir`: the files git tracks plus untracked ones it does not
 * ignore (so dist/ and any *.tgz stay behind), with the installed node_modules linked in.
 */
function freshClone(dir) {
  const files = run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], root).split('\0').filter(Boolean);
  for (const file of files) {
    // Deleted in the working tree, or not a file (a worktree's node_modules symlink).
    if (file === 'node_modules' || !existsSync(join(root, file)) || !lstatSync(join(root, file)).isFile()) continue;
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    copyFileSync(join(root, file), join(dir, file));
  }
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
  if (existsSync(join(dir, 'dist'))) throw new Error('[check-tarball] the fresh clone has a dist/ (is it tracked?)');
}

const work = mkdtempSync(join(tmpdir(), 'svcbase-tarball-'));
try {
  const clone = join(work, 'clone');
  freshClone(clone);
  // Scripts on: `prepack` builds dist/. Its build lines go to stdout too, so the tarball is found on disk.
  const packs = join(work, 'packs');
  mkdirSync(packs);
  run('npm', ['pack', '--pack-destination', packs], clone);
  const filename = readdirSync(packs).find((name) => name.endsWith('.tgz'));
  if (!filename) throw new Error('[check-tarball] npm pack wrote no tarball');
  const tarball = join(packs, filename);
  const entries = run('tar', ['-tzf', tarball], work).split('\n').filter(Boolean);
  for (const needed of ['package/dist/index.js', 'package/dist/index.cjs', 'package/dist/index.d.ts', 'package/dist/cli.js', 'package/dist/console/app.js', 'package/bin/svcbase.mjs']) {
    if (!entries.includes(needed)) throw new Error(`[check-tarball] ${filename} from a fresh clone has no ${needed.slice('package/'.length)} (is the prepack build missing?)`);
  }
  process.stdout.write(`[check-tarball] ${filename} packed from a fresh clone: ${entries.length} files\n`);
  const typePackages = [`@types/node@${versionOf('@types/node')}`, `@types/better-sqlite3@${versionOf('@types/better-sqlite3')}`];
  for (const [flavour, { type, load }] of Object.entries(FLAVOURS)) {
    const dir = join(work, flavour);
    mkdirSync(dir);
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `tarball-${flavour}`, private: true, type }, null, 2));
    // Scripts off: only types are needed from the native peer's @types; --prefer-offline reuses the npm cache.
    run('npm', ['install', '--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund', tarball, ...typePackages], dir);
    writeFileSync(join(dir, 'server.ts'), example);
    for (const [resolution, options] of Object.entries(COMPILER)) {
      const config = { compilerOptions: { ...options, target: 'es2022', strict: true, esModuleInterop: true, skipLibCheck: false, noEmit: true, types: ['node'] }, files: ['server.ts'] };
      writeFileSync(join(dir, `tsconfig.${resolution}.json`), JSON.stringify(config, null, 2));
      try {
        run(process.execPath, [tsc, '-p', `tsconfig.${resolution}.json`], dir);
      } catch (error) {
        throw new Error(`[check-tarball] ${flavour} project, moduleResolution ${resolution}:\n${error.stdout}${error.stderr}`);
      }
      process.stdout.write(`[check-tarball] ${flavour} project, moduleResolution ${resolution}: types ok\n`);
    }
    run(process.execPath, ['-e', load], dir);
    process.stdout.write(`[check-tarball] ${flavour} project: loads ok\n`);
  }
  // The package's bin runs from dist/; without the optional SQLite peer, serve says what to install.
  const esm = join(work, 'esm');
  const version = run('npx', ['--no-install', 'svcbase', 'version'], esm).trim();
  if (version !== JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version) throw new Error(`[check-tarball] svcbase version printed '${version}'`);
  try {
    run('npx', ['--no-install', 'svcbase', 'serve', '--port', '0'], esm);
    throw new Error('[check-tarball] svcbase serve started without better-sqlite3');
  } catch (error) {
    if (!/needs the package better-sqlite3: run npm install better-sqlite3/.test(String(error.stderr))) throw error;
  }
  process.stdout.write('[check-tarball] bin: svcbase version and the missing-peer message ok\n');
  process.stdout.write('[check-tarball] passed\n');
} finally {
  rmSync(work, { recursive: true, force: true });
}
