import { defineConfig } from 'tsup';

/** One entry per subpath export; `npm run check:exports` verifies package.json matches the build. */
export const entries = {
  index: 'src/index.ts',
  node: 'src/node.ts',
  fetch: 'src/fetch.ts',
  fastify: 'src/fastify.ts',
  memory: 'src/memory.ts',
  sqlite: 'src/sqlite.ts',
  testing: 'src/testing.ts',
  query: 'src/query/index.ts',
  redis: 'src/redis.ts',
  'adapter-kit': 'src/adapter-kit.ts',
  postgres: 'src/postgres.ts',
};

/**
 * Files the package loads by path rather than by import: the SQLite reader worker
 * (src/storage/sqlite/reader-entry.ts starts `sqlite-reader-worker.js`/`.cjs` next to its chunks),
 * the SQLite checkpointer (checkpointer.ts)
 * and the deployed functions' sandbox worker (src/functions/sandbox/sandbox-pool.ts).
 */
export const workerEntries = {
  'sqlite-reader-worker': 'src/storage/sqlite/sqlite-reader-worker.ts',
  'sqlite-checkpoint-worker': 'src/storage/sqlite/sqlite-checkpoint-worker.ts',
  'functions-sandbox-worker': 'src/functions/sandbox/functions-sandbox-worker.ts',
};

/** The `svcbase` command's code (bin/svcbase.mjs loads it from a published package); not a subpath export. */
export const binEntries = {
  cli: 'src/cli/main.ts',
};

export default defineConfig({
  entry: { ...entries, ...workerEntries, ...binEntries },
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  sourcemap: true,
  // createRequire(import.meta.url) in ESM sources needs the import.meta shim in the CJS build.
  shims: true,
  target: 'node20',
  splitting: true,
  external: ['better-sqlite3', '@napi-rs/canvas', 'vitest', 'nodemailer', 'ajv', 'quickjs-emscripten-core', '@jitl/quickjs-wasmfile-release-sync', 'web-push'],
});
