import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { sqliteStorage } from '../../src/storage/sqlite/index.js';

// A second process holds a read lock on a fresh (rollback-journal) file for 300 ms, as a racing
// process opening the same file does; the switch to WAL needs an exclusive lock.
const HOLDER = `
const Database = require(process.argv[1]);
const db = new Database(process.argv[2]);
db.exec('CREATE TABLE IF NOT EXISTS t (x)');
db.exec('BEGIN');
db.prepare('SELECT count(*) FROM t').get();
process.stdout.write('locked\\n');
Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 300);
db.exec('COMMIT');
db.close();
`;

describe('sqlite: opening a file another process is using', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svcbase-wal-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('D6: the switch to WAL waits for a racing process instead of failing with SQLITE_BUSY', async () => {
    const file = join(dir, 'fresh.db');
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    const holder = spawn(process.execPath, ['-e', HOLDER, driver, file], { stdio: ['ignore', 'pipe', 'inherit'] });
    // Listened for at once: the holder may exit before the adapter has finished starting.
    const exited = new Promise((resolve) => holder.once('exit', resolve));
    await new Promise<void>((resolve) => holder.stdout.once('data', () => resolve()));
    const db = new Database(file, { timeout: 0 });
    const storage = sqliteStorage({ database: db, busyTimeoutMs: 5000 });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    await storage.close();
    await exited;
  });
});
