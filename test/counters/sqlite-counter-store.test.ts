import Database from 'better-sqlite3';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { sqliteCounterStore } from '../../src/counters/sqlite-counter-store.js';
import { CONTRACT_SMS_WINDOWS as SMS, CONTRACT_T0 as T0 } from '../../src/counters/conformance.js';
import { runCounterStoreConformance } from '../../src/testing.js';
import { lineReader } from '../helpers/line-reader.js';

const dir = mkdtempSync(join(tmpdir(), 'svcbase-counters-'));
const opened: Database.Database[] = [];
afterAll(() => {
  for (const db of opened) if (db.open) db.close();
  rmSync(dir, { recursive: true, force: true });
});
function open(file = ':memory:'): Database.Database {
  const db = new Database(file);
  opened.push(db);
  return db;
}

runCounterStoreConformance('sqlite', () => sqliteCounterStore({ database: open() }));

describe('sqliteCounterStore specifics', () => {
  it('limits survive a restart (file reopened)', async () => {
    const file = join(dir, 'restart.db');
    const first = open(file);
    const before = sqliteCounterStore({ database: first });
    for (let i = 0; i < 5; i++) expect((await before.consume('app:13800138000', SMS, T0 + i * 60_000)).allowed).toBe(true);
    first.close();
    const after = sqliteCounterStore({ database: open(file) });
    expect(await after.consume('app:13800138000', SMS, T0 + 10 * 60_000)).toEqual({ allowed: false, retryAfterMs: 50 * 60_000 });
    expect((await after.consume('app:13800138000', SMS, T0 + 60 * 60_000)).allowed).toBe(true);
  });

  it('two connections on one file share the limit', async () => {
    const file = join(dir, 'two-connections.db');
    const a = sqliteCounterStore({ database: open(file) });
    const b = sqliteCounterStore({ database: open(file) });
    expect((await a.consume('k', SMS, T0)).allowed).toBe(true);
    expect((await b.consume('k', SMS, T0 + 1000)).allowed).toBe(false);
  });

  it('two processes hammering one key on one file allow exactly the limit', async () => {
    const file = join(dir, 'two-processes.db');
    const setup = open(file);
    setup.pragma('journal_mode = WAL');
    sqliteCounterStore({ database: setup });
    const worker = fileURLToPath(new URL('./fixtures/consume-worker.ts', import.meta.url));
    const children = [0, 1].map((i) => spawn(process.execPath, ['--import', 'tsx', worker, file, '400', '500', String(i)], { stdio: ['pipe', 'pipe', 'inherit'] }));
    const lines = children.map(lineReader);
    expect(await Promise.all(lines.map((next) => next()))).toEqual(['ready', 'ready']);
    for (const child of children) child.stdin!.write('go\n');
    const allowed = (await Promise.all(lines.map((next) => next()))).map(Number);
    expect(allowed[0]! + allowed[1]!).toBe(500);
    expect(setup.prepare('SELECT count(*) AS n FROM svc_rate_hits').get()).toEqual({ n: 500 });
  }, 60_000);

  it('D7: another process\'s short-window traffic never sweeps a key\'s per-day hits', async () => {
    const file = join(dir, 'd7-two-processes.db');
    const db = open(file);
    db.pragma('journal_mode = WAL');
    const sms = sqliteCounterStore({ database: db });
    const perDay = [{ limit: 1, windowMs: 24 * 3_600_000 }];
    expect((await sms.consume('sms:app:13800138000', perDay, T0)).allowed).toBe(true);
    const worker = fileURLToPath(new URL('./fixtures/captcha-traffic-worker.ts', import.meta.url));
    const child = spawn(process.execPath, ['--import', 'tsx', worker, file, '1020', String(T0 + 120_000)], { stdio: ['ignore', 'pipe', 'inherit'] });
    expect(await lineReader(child)()).toBe('1020');
    const again = await sms.consume('sms:app:13800138000', perDay, T0 + 180_000);
    expect(again).toEqual({ allowed: false, retryAfterMs: 24 * 3_600_000 - 180_000 });
  }, 60_000);

  it('D7: the sweep still removes hits past their own expiry', async () => {
    const db = open();
    const store = sqliteCounterStore({ database: db, sweepEvery: 10 });
    await store.consume('day', [{ limit: 5, windowMs: 24 * 3_600_000 }], T0);
    for (let i = 0; i < 10; i++) await store.consume(`minute:${i}`, [{ limit: 5, windowMs: 60_000 }], T0 + i);
    for (let i = 0; i < 10; i++) await store.consume(`later:${i}`, [{ limit: 5, windowMs: 60_000 }], T0 + 120_000 + i);
    const keys = (db.prepare('SELECT DISTINCT key FROM svc_rate_hits').all() as Array<{ key: string }>).map((r) => r.key);
    expect(keys).toContain('day');
    expect(keys.some((k) => k.startsWith('minute:'))).toBe(false);
  });

  it('D7: a table from an earlier version gains the expires column; its old hits still count', async () => {
    const db = open();
    db.exec('CREATE TABLE svc_rate_hits (key TEXT NOT NULL, at INTEGER NOT NULL)');
    db.prepare('INSERT INTO svc_rate_hits (key, at) VALUES (?, ?)').run('old', T0);
    const store = sqliteCounterStore({ database: db, sweepEvery: 1 });
    const perDay = [{ limit: 1, windowMs: 24 * 3_600_000 }];
    expect((await store.consume('other', [{ limit: 5, windowMs: 60_000 }], T0 + 120_000)).allowed).toBe(true);
    expect((await store.consume('old', perDay, T0 + 180_000)).allowed).toBe(false);
  });
});
