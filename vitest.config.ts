import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = fileURLToPath(new URL('./src/', import.meta.url));

/** Examples import `svcbase/...` as users do; tests run them against the sources. */
export const sourceAliases = [
  { find: /^svcbase$/, replacement: `${src}index.ts` },
  { find: /^svcbase\/(.*)$/, replacement: `${src}$1.ts` },
];

export default defineConfig({
  resolve: { alias: sourceAliases },
  test: {
    include: ['test/**/*.test.ts'],
    // The browser tests drive chromium: `npm run test:browser` (vitest.browser.config.ts), run by .ci/run.
    // The fault suite kills and restarts processes: `npm run test:faults` (test/faults/vitest.config.ts), run by .ci/run.
    exclude: ['test/browser/**', 'test/faults/**', '**/node_modules/**'],
    pool: 'forks',
    // isolated-vm (an optional runtime of deployed functions, D216) crashes a process started from
    // Node's snapshot; its tests run where it is installed.
    execArgv: ['--no-node-snapshot'],
    // Each worker keeps its module cache across test files: loading the sources once per worker
    // instead of once per file halves the suite's time on two cores. Test files therefore must not
    // leave global state behind (process.env, prototypes, module-level switches) or mock modules.
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
