import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The violations `npm run check:layers` prints (one `FAIL ...` line each). */
function layerViolations(): string[] {
  const run = spawnSync(process.execPath, ['scripts/check-layers.mjs'], { cwd: root, encoding: 'utf8' });
  expect(run.stdout).toMatch(/^layers: \d+ files, \d+ violations$/m);
  return run.stdout.split('\n').filter((line) => line.startsWith('FAIL ')).map((line) => line.slice(5));
}

describe('layers (docs/architecture.md)', () => {
  it('issue 13: src/query is engines only: it imports nothing from storage/, http/ or app/', () => {
    expect(layerViolations().filter((v) => v.startsWith('engine does I/O'))).toEqual([]);
  });

  it('issue 13: every rule holds: services import http/ only from route files, no folder cycles', () => {
    expect(layerViolations()).toEqual([]);
  });

  it('issue 38: features are peers: none imports a module inside another (45 on main before), no ambient caller, fakes under testing/', () => {
    const violations = layerViolations();
    expect(violations.filter((v) => v.startsWith('feature reaches into another'))).toEqual([]);
    expect(violations.filter((v) => v.startsWith('ambient caller'))).toEqual([]);
    expect(violations.filter((v) => v.startsWith('test fake outside'))).toEqual([]);
  });

  it('issue 38: the feature contract is free of HTTP: only http/, route files and host glue import the host kit (8 feature files before)', () => {
    expect(layerViolations().filter((v) => v.startsWith('imports the host kit'))).toEqual([]);
  });

  it('docs/architecture.md exists (it shows the layers this check enforces)', () => {
    expect(layerViolations()).not.toContain('no docs/architecture.md');
  });
});
