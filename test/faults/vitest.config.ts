import { defineConfig } from 'vitest/config';
import { sourceAliases } from '../../vitest.config.js';

/** The fault suite (issue 40): real processes, killed and restarted; `npm run test:faults`, not part of `npm test`. */
export default defineConfig({
  resolve: { alias: sourceAliases },
  test: {
    include: ['test/faults/**/*.test.ts'],
    pool: 'forks',
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
