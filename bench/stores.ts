/**
 * Opening and filling the storage adapters under test. The SQLite adapter is imported lazily so a
 * group can report "skipped" while a module it depends on is still landing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { StoredRecord } from '../src/core/values.js';
import type { StorageAdapter, TableRef } from '../src/storage/port.js';
import { BENCH_COLUMNS, BENCH_INDEXES, CLASS_NAME } from './data.js';

export interface SqliteFixture {
  readonly storage: StorageAdapter;
  /** The very connection the adapter uses: the raw baseline prepares its statements on it. */
  readonly db: Database.Database;
  readonly file: string;
  /** Closes the adapter (and the database) and deletes the files. */
  close(): Promise<void>;
}

/** A temporary directory under os.tmpdir(), removed by the returned function. */
export function tempDir(prefix: string): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), `svcbase-bench-${prefix}-`));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A file-backed SQLite adapter (WAL, synchronous=NORMAL: the adapter's own settings) in a temp dir. */
export async function openSqliteFixture(label: string): Promise<SqliteFixture> {
  const { sqliteStorage } = await import('../src/storage/sqlite/index.js');
  const tmp = tempDir(label);
  const file = join(tmp.dir, 'bench.db');
  const db = new Database(file);
  const storage = sqliteStorage({ database: db });
  return {
    storage,
    db,
    file,
    async close() {
      await storage.close();
      tmp.remove();
    },
  };
}

export async function openMemoryStorage(): Promise<StorageAdapter> {
  const { memoryStorage } = await import('../src/storage/memory/index.js');
  return memoryStorage();
}

/**
 * Creates the Bench table with its columns and indexes and inserts `records` through the adapter
 * (10k per transaction), so the physical rows are exactly what the adapter writes.
 */
export async function seedTable(storage: StorageAdapter, ref: TableRef, records: Iterable<StoredRecord>): Promise<void> {
  await storage.ensureColumns(ref, BENCH_COLUMNS);
  for (const index of BENCH_INDEXES) await storage.createIndex(ref, { name: index.name, columns: [...index.columns], unique: index.unique });
  const iterator = records[Symbol.iterator]();
  let done = false;
  while (!done) {
    await storage.transaction(async (tx) => {
      for (let n = 0; n < 10_000; n++) {
        const next = iterator.next();
        if (next.done) {
          done = true;
          return;
        }
        await tx.insert(ref, next.value);
      }
    });
  }
}

export function benchRef(namespace: string): TableRef {
  return { namespace, className: CLASS_NAME };
}
