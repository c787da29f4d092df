// The packed tarball installs into a new ESM project and a new CommonJS project, and the README's
// "Use it in your server" example type-checks in each under moduleResolution node, node16 and bundler.
// Both builds also load at run time. Usage: node scripts/check-tarball.mjs [--no-build]
// (.ci/run passes --no-build right after `npm run check:exports` has built dist/).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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

const work = mkdtempSync(join(tmpdir(), 'svcbase-tarball-'));
try {
  if (!process.argv.includes('--no-build')) run('npm', ['run', 'build'], root);
  const packed = JSON.parse(run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work], root))[0];
  const tarball = join(work, packed.filename);
  process.stdout.write(`[check-tarball] ${packed.filename}: ${packed.entryCount} files, ${packed.size} bytes\n`);
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
