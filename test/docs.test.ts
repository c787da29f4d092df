import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../src/core/error-codes.js';

describe('docs stay in step with the code', () => {
  it('docs/errors.md lists every error of the code table (run npm run docs:errors)', () => {
    const doc = readFileSync(new URL('../docs/errors.md', import.meta.url), 'utf8');
    for (const [name, entry] of Object.entries(ERROR_CODES)) {
      expect(doc, name).toContain(`| ${entry.code} | ${entry.status} | \`${name}\` |`);
    }
  });

  it('package.json exports one subpath per build entry', async () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { exports: Record<string, unknown> };
    const { entries } = await import('../tsup.config.js');
    const subpaths = Object.keys(entries).map((e) => (e === 'index' ? '.' : `./${e}`));
    expect(Object.keys(pkg.exports).filter((k) => k !== './package.json').sort()).toEqual(subpaths.sort());
  });
});
