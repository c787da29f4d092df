import type { StorageAdapter } from '../../src/storage/port.js';

/**
 * The shared storage of the multi-instance proof, chosen by `SVC_SCALE_STORAGE`:
 * - `sqlite` (default): one SQLite file (`SVC_SCALE_SQLITE_FILE`) opened by every process (WAL);
 * - `postgres`: `postgresStorage` from svcbase/postgres on `SVC_DATABASE_URL`, in the schema
 *   `SVC_SCALE_PG_SCHEMA` (the harness creates and drops it). Loaded dynamically: until the
 *   PostgreSQL storage adapter exists, that mode is skipped with a loud message.
 */
export type ScaleStorageMode = 'sqlite' | 'postgres';

export function scaleStorageMode(): ScaleStorageMode {
  const mode = process.env.SVC_SCALE_STORAGE ?? 'sqlite';
  if (mode !== 'sqlite' && mode !== 'postgres') throw new Error(`SVC_SCALE_STORAGE must be sqlite or postgres, got '${mode}'`);
  return mode;
}

/** The storage adapter factory of svcbase/postgres, or null while it is not built. */
export async function loadPostgresStorage(): Promise<((options: { sql: unknown }) => StorageAdapter) | null> {
  const mod = (await import('../../src/postgres.js')) as Record<string, unknown>;
  return typeof mod.postgresStorage === 'function' ? (mod.postgresStorage as (options: { sql: unknown }) => StorageAdapter) : null;
}

/** Opens the shared storage in an instance process. */
export async function openScaleStorage(): Promise<{ storage: StorageAdapter; close(): Promise<void> }> {
  if (scaleStorageMode() === 'sqlite') {
    const { openSqlite } = await import('../../src/sqlite.js');
    const file = process.env.SVC_SCALE_SQLITE_FILE;
    if (!file) throw new Error('SVC_SCALE_SQLITE_FILE is not set');
    return { storage: openSqlite(file), close: async () => {} };
  }
  const postgresStorage = await loadPostgresStorage();
  if (!postgresStorage) throw new Error('svcbase/postgres has no postgresStorage');
  const { default: postgres } = await import('postgres');
  const schema = process.env.SVC_SCALE_PG_SCHEMA;
  const sql = postgres(process.env.SVC_DATABASE_URL!, { max: 10, onnotice: () => {}, ...(schema ? { connection: { search_path: schema } } : {}) });
  return { storage: postgresStorage({ sql }), close: () => sql.end({ timeout: 2 }) };
}
