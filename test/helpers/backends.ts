import Database from 'better-sqlite3';
import { memoryStorage } from '../../src/memory.js';
import type { StorageAdapter } from '../../src/storage/port.js';
import { postgresStorage } from '../../src/storage/postgres/index.js';
import { sqliteStorage } from '../../src/storage/sqlite/index.js';
import { createTestSchema, postgresAvailable } from '../postgres/pg-test-db.js';

/** A storage for one e2e suite, and how to drop what it made. */
export interface Backend {
  readonly storage: StorageAdapter;
  drop?(): Promise<void>;
}

/**
 * Memory, SQLite (`:memory:`) and, when PostgreSQL answers (always in CI), PostgreSQL in a schema of
 * its own: `describe.each(await storageBackends('suite', 'svc_prefix'))('... (%s)', (name, make) => ...)`.
 */
export async function storageBackends(suite: string, schemaPrefix: string): Promise<Array<[string, () => Promise<Backend>]>> {
  const backends: Array<[string, () => Promise<Backend>]> = [
    ['memory', async () => ({ storage: memoryStorage() })],
    ['sqlite', async () => ({ storage: sqliteStorage({ database: new Database(':memory:') }) })],
  ];
  if (await postgresAvailable(suite)) {
    backends.push([
      'postgres',
      async () => {
        const schema = await createTestSchema(schemaPrefix);
        return { storage: postgresStorage({ sql: schema.client({ max: 8 }) }), drop: () => schema.drop() };
      },
    ]);
  }
  return backends;
}
