import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = fileURLToPath(new URL('./src/', import.meta.url));

export default defineConfig({
  resolve: {
    // Examples import `svcbase/...` as users do; tests run them against the sources.
    alias: [
      { find: /^svcbase$/, replacement: `${src}index.ts` },
      { find: /^svcbase\/(.*)$/, replacement: `${src}$1.ts` },
    ],
  },
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
