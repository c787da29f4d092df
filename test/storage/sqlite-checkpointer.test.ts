import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { startCheckpointer } from '../../src/storage/sqlite/checkpointer.js';
import { sqliteStorage } from '../../src/storage/sqlite/index.js';

/** Write-ahead-log checkpoints on a worker thread, off the commit path (issue 22). */
describe('sqlite: background checkpoints', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svcbase-checkpoint-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a worker copies the log back while the writer only keeps a backstop threshold', async () => {
    const db = new Database(join(dir, 'bg.db'));
    db.pragma('journal_mode = WAL');
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)');
    const checkpointer = startCheckpointer(db, 5000, 10)!;
    try {
      expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(10_000);
      const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
      for (let i = 0; i < 20; i++) db.transaction(() => { for (let j = 0; j < 200; j++) insert.run('x'.repeat(200)); })();
      // Waits (bounded) for the worker's next tick: the event is the checkpoint itself, not a duration.
      const deadline = Date.now() + 10_000;
      while (checkpointer.latest().checkpointed === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(checkpointer.latest().checkpointed).toBeGreaterThan(100);
      expect((db.prepare('SELECT count(*) AS n FROM t').get() as { n: number }).n).toBe(4000);
    } finally {
      await checkpointer.close();
      db.close();
    }
  });

  it('the adapter starts one for file databases unless told not to; memory databases keep inline checkpoints', async () => {
    const background = new Database(join(dir, 'adapter.db'));
    const inline = new Database(join(dir, 'inline.db'));
    const memory = new Database(':memory:');
    const adapters = [sqliteStorage({ database: background }), sqliteStorage({ database: inline, checkpointIntervalMs: 0 }), sqliteStorage({ database: memory })];
    try {
      expect(background.pragma('wal_autocheckpoint', { simple: true })).toBe(10_000);
      expect(inline.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
      expect(memory.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    } finally {
      for (const adapter of adapters) await adapter.close();
    }
  });
});
