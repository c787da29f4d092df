import { defineConfig } from 'vitest/config';
import { sourceAliases } from './vitest.config.js';

/** The browser tests (test/browser): chromium driven by playwright-core over a real svcbase on loopback. */
export default defineConfig({
  resolve: { alias: sourceAliases },
  test: { include: ['test/browser/**/*.test.ts'], pool: 'forks', testTimeout: 60_000, hookTimeout: 60_000 },
});
