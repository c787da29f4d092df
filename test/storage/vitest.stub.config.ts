import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Interim: runs the storage/records tests before the query modules exist.
export default defineConfig({
  resolve: {
    alias: [
      { find: /^.*\/query\/evaluate\/index\.js$/, replacement: fileURLToPath(new URL('./stubs/query-evaluate.ts', import.meta.url)) },
      { find: /^.*\/query\/sql\/index\.js$/, replacement: fileURLToPath(new URL('./stubs/query-sql.ts', import.meta.url)) },
    ],
  },
  test: { include: ['test/storage/**/*.test.ts', 'test/records/**/*.test.ts'], pool: 'forks', testTimeout: 30_000 },
});
