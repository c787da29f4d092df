import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = new URL('..', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, root), 'utf8');
interface Pkg {
  description: string;
  keywords?: string[];
  files: string[];
  dependencies: Record<string, string>;
  exports: Record<string, { require?: { default: string } } | string>;
  typesVersions: Record<string, Record<string, string[]>>;
}
const pkg = JSON.parse(read('package.json')) as Pkg;

describe('the package', () => {
  it('fix 11.9: README and package.json claim no feature that does not exist yet', () => {
    // Host-defined and deployed cloud functions exist; the README says how each runs.
    const intro = read('README.md').split('\n## ')[0] as string;
    expect(intro).toMatch(/Cloud\s+functions\s+run when the host defines them in code/);
    expect(intro).toMatch(/deployed as source through `\/1\/cloudCode`\s+into a QuickJS sandbox/);
    expect(pkg.description).not.toMatch(/cloud function/i);
  });

  it('fix 11.10: LICENSE, keywords and a dependency list holding only what the code imports', () => {
    expect(read('LICENSE')).toMatch(/^MIT License/);
    expect(read('assets/fonts/LICENSE-DejaVu.txt')).toMatch(/Bitstream Vera/);
    expect(pkg.files).toEqual(expect.arrayContaining(['dist', 'assets', 'LICENSE', 'README.md']));
    expect(pkg.keywords?.length).toBeGreaterThan(3);
    expect(Object.keys(pkg.dependencies)).toEqual(['ajv', 'eventsource-parser', 'ws']); // ws: the realtime feature (D77); eventsource-parser: AI chat (D109)
  });

  it('fix 11.10: typesVersions maps every subpath for moduleResolution "node"', () => {
    const subpaths = Object.keys(pkg.exports).filter((k) => k !== '.' && k !== './package.json').map((k) => k.slice(2));
    const mapped = pkg.typesVersions['*']!;
    for (const subpath of subpaths) expect(mapped[subpath], subpath).toEqual([`./dist/${subpath}.d.ts`]);
    expect(mapped['dist/index.d.ts']).toEqual(['./dist/index.d.ts']);
  });

  it('fix 11.10: require("svcbase/testing") fails with an error that says it is ESM-only and where the fakes are', () => {
    const testing = pkg.exports['./testing'] as { require: { default: string } };
    const stub = new URL(testing.require.default, root);
    expect(pkg.files).toContain(testing.require.default.split('/')[1]);
    const run = () => execFileSync(process.execPath, ['-e', `require(${JSON.stringify(stub.pathname)})`], { stdio: 'pipe' });
    expect(run).toThrow(/svcbase\/testing runs under vitest, which is ESM-only.*FakeClock/s);
  });

  it('fix 11.11: complete-lock.mjs writes its entries the way npm does, so npm install leaves the lock alone', () => {
    const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, unknown> };
    const work = mkdtempSync(join(tmpdir(), 'svcbase-lock-'));
    try {
      mkdirSync(join(work, 'scripts'));
      copyFileSync(new URL('scripts/complete-lock.mjs', root), join(work, 'scripts/complete-lock.mjs'));
      const stripped = Object.fromEntries(Object.entries(lock.packages).filter(([k, v]) => !(k.startsWith('node_modules/@rollup/rollup-') && !(v as { integrity?: string }).integrity)));
      expect(Object.keys(stripped).length).toBeLessThan(Object.keys(lock.packages).length);
      writeFileSync(join(work, 'package-lock.json'), JSON.stringify({ ...lock, packages: stripped }, null, 2) + '\n');
      execFileSync(process.execPath, [join(work, 'scripts/complete-lock.mjs')], { stdio: 'pipe' });
      expect(readFileSync(join(work, 'package-lock.json'), 'utf8')).toBe(read('package-lock.json'));
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });

  it('fix 39.1: npm pack builds dist/ first (prepack), tarballs stay out of git, and CI packs a fresh clone without building', () => {
    const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
    expect(scripts['prepack']).toBe('npm run build');
    expect(read('.gitignore').split('\n')).toContain('*.tgz');
    // scripts/check-tarball.mjs packs a copy of the tracked files (no dist/) with scripts on and checks dist/ is inside.
    const check = read('scripts/check-tarball.mjs');
    expect(check).not.toMatch(/--ignore-scripts', '--pack-destination/);
    expect(read('.ci/run')).toMatch(/^npm run check:tarball$/m);
  });

  it('fix 39.10: npm install warns of no engine: every locked package accepts this Node, and what the package installs accepts the Node it declares', () => {
    const semver = createRequire(import.meta.url)('semver') as { satisfies(version: string, range: string): boolean; minVersion(range: string): { version: string } | null };
    const declared = (JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node;
    const oldest = semver.minVersion(declared)!.version;
    const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, { engines?: { node?: string } | string[]; dev?: boolean; optional?: boolean }> };
    const refused: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      const range = entry.engines && !Array.isArray(entry.engines) ? entry.engines.node : undefined;
      if (path === '' || range === undefined) continue;
      // npm's EBADENGINE: a locked package that does not accept the Node running npm install.
      if (!semver.satisfies(process.version, range)) refused.push(`${path} wants node ${range} (running ${process.version})`);
      // What `npm install svcbase` brings must run on the oldest Node package.json names.
      if (!entry.dev && !semver.satisfies(oldest, range)) refused.push(`${path} wants node ${range}, package.json says ${declared}`);
    }
    expect(refused).toEqual([]);
  });
});
