import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import { isSvcError } from '../../src/core/errors.js';
import { dateValue } from '../../src/core/values.js';
import type { AggregatePlan, FindPlan, WhereNode } from '../../src/query/plan.js';
import { memoryStorage } from '../../src/storage/memory/index.js';
import type { StorageAdapter, TableRef } from '../../src/storage/port.js';
import { ReaderPool } from '../../src/storage/sqlite/reader-pool.js';
import { openSqlite } from '../../src/storage/sqlite/index.js';
import { manualTicker } from '../realtime/harness.js';

/** A stand-in reader: answers 42, or spins forever in JavaScript on `hang` (a runaway read). */
const FAKE_READER = `
const { parentPort } = require('node:worker_threads');
parentPort.on('message', (job) => {
  if (job.request.sql === 'hang') for (;;) {}
  parentPort.postMessage({ id: job.id, value: 42 });
});
parentPort.postMessage({ ready: true });
`;

function fakePool(size: number, maxQueued: number): ReaderPool {
  return new ReaderPool({
    spawn: (workerData) => new Worker(FAKE_READER, { eval: true, workerData }),
    data: { file: 'unused', busyTimeoutMs: 0, driverFrom: 'unused', tuning: { cacheSizeKiB: 2000, mmapSizeBytes: 0 } },
    size,
    maxQueued,
    graceMs: 20,
    // A clock that stands still: waiting for a worker to start (or to be replaced) costs these reads no budget (D234).
    clock: new FakeClock(),
  });
}

const read = (sql: string) => ({ kind: 'count' as const, sql, parameters: [] });

/**
 * A stand-in reader the test holds deterministically: `block` waits until the test opens the gate
 * (shared memory, slot 0), `ok` is counted (slot 1) and answers 42, `budget` answers the budget it
 * was handed.
 */
const BLOCKING_READER = `
const { parentPort, workerData } = require('node:worker_threads');
const state = new Int32Array(workerData.shared);
parentPort.on('message', (job) => {
  const sql = job.request.sql;
  if (sql === 'block') Atomics.wait(state, 0, 0);
  if (sql === 'ok') Atomics.add(state, 1, 1);
  parentPort.postMessage({ id: job.id, value: sql === 'budget' ? job.budgetMs : 42 });
});
parentPort.postMessage({ ready: true });
`;

function blockingPool(size: number, maxQueued = 8) {
  const state = new Int32Array(new SharedArrayBuffer(8));
  const clock = new FakeClock();
  const ticker = manualTicker();
  const pool = new ReaderPool({
    spawn: () => new Worker(BLOCKING_READER, { eval: true, workerData: { shared: state.buffer } }),
    data: { file: 'unused', busyTimeoutMs: 0, driverFrom: 'unused', tuning: { cacheSizeKiB: 2000, mmapSizeBytes: 0 } },
    size,
    maxQueued,
    graceMs: 20,
    clock,
    ticker,
  });
  const open = () => {
    Atomics.store(state, 0, 1);
    Atomics.notify(state, 0);
  };
  /** How many `ok` reads a worker ran. */
  const okRuns = () => Atomics.load(state, 1);
  return { pool, clock, ticker, open, okRuns };
}

/** The SvcError code a read fails with ('resolved' when it does not fail). */
async function codeOf(read: Promise<unknown> | (() => unknown)): Promise<number | string> {
  try {
    await (typeof read === 'function' ? read() : read);
    return 'resolved';
  } catch (error) {
    return isSvcError(error) ? error.code : String(error);
  }
}

const regexWhere: WhereNode = { kind: 'regex', field: { column: 'text', path: [] }, pattern: 'row', flags: '' };
const findPlan = (where: WhereNode): FindPlan => ({ where, order: [], skip: 0, limit: 1000, projection: { kind: 'all' } });

async function seed(storage: StorageAdapter, ref: TableRef, rows: number): Promise<void> {
  await storage.ensureColumns(ref, { text: { type: 'String' } });
  await storage.transaction(async (tx) => {
    for (let i = 0; i < rows; i++) await tx.insert(ref, { objectId: `r${i}`, createdAt: dateValue(1e12 + i), updatedAt: dateValue(1e12 + i), text: `row ${i}` });
  });
}

describe('reader pool', () => {
  it('D2: a worker past its budget is terminated, the read answers 11090, and a new worker serves the next read', async () => {
    const pool = fakePool(1, 4);
    try {
      expect(await codeOf(pool.read(read('hang'), 10))).toBe(11090);
      expect(await pool.read(read('ok'), 1000)).toBe(42);
      expect(pool.threads).toBeLessThanOrEqual(2);
    } finally {
      await pool.close();
    }
    expect(pool.threads).toBe(0);
  });

  it('D2: with every worker busy and the queue full, a read answers 11091 at once', async () => {
    const pool = fakePool(1, 1);
    try {
      const hanging = codeOf(pool.read(read('hang'), 60_000));
      const queued = codeOf(pool.read(read('ok'), 60_000));
      expect(await codeOf(pool.read(read('ok'), 60_000))).toBe(11091);
      await pool.close();
      expect(await hanging).not.toBe('resolved');
      expect(await queued).not.toBe('resolved');
    } finally {
      await pool.close();
    }
  });
});

describe('D234: a read waiting for a reader worker counts its wait against its budget', () => {
  it('D234: a read still waiting when its budget runs out answers 11091 at once and never runs; a fresh read then works', async () => {
    const { pool, clock, ticker, open, okRuns } = blockingPool(1);
    try {
      const slow = pool.read(read('block'), 60_000);
      let answered: number | string | undefined;
      void codeOf(pool.read(read('ok'), 100)).then((code) => (answered = code));
      clock.advance(101);
      ticker.tick();
      await new Promise((resolve) => setImmediate(resolve));
      // Answered while the only worker is still held by the slow read.
      expect(answered).toBe(11091);
      open();
      expect(await slow).toBe(42);
      expect(await pool.read(read('ok'), 100)).toBe(42);
      expect(okRuns()).toBe(1); // the fresh read only
    } finally {
      open();
      await pool.close();
    }
  });

  it('D234: a worker freed after a waiting read\'s budget ran out does not start it, and the next read gets what is left of its own', async () => {
    const { pool, clock, open, okRuns } = blockingPool(1);
    try {
      const slow = pool.read(read('block'), 60_000);
      const late = codeOf(pool.read(read('ok'), 100));
      const timely = pool.read(read('budget'), 1000);
      clock.advance(400); // no sweep: the dispatch itself sees the budgets
      open();
      expect(await slow).toBe(42);
      expect(await late).toBe(11091);
      expect(await timely).toBe(600);
      expect(okRuns()).toBe(0);
    } finally {
      open();
      await pool.close();
    }
  });

  it('D234: reads whose budget ran out while waiting leave the queue before a new read is measured against its bound', async () => {
    // Two places; the worker is still starting, so the slow read takes one until it does.
    const { pool, clock, open, okRuns } = blockingPool(1, 2);
    try {
      const slow = pool.read(read('block'), 60_000);
      const late = codeOf(pool.read(read('ok'), 100));
      clock.advance(101);
      const next = codeOf(pool.read(read('ok'), 1000)); // the late read's place is free again: not 11091
      open();
      expect(await late).toBe(11091);
      expect(await slow).toBe(42);
      expect(await next).toBe('resolved');
      expect(okRuns()).toBe(1);
    } finally {
      open();
      await pool.close();
    }
  });
});

describe('SQLite reads under a budget', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svcbase-readers-'));
  let files = 0;
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const ref: TableRef = { namespace: 'app', className: 'Doc' };

  it('D2: a worker read over its budget answers 11090 (file database)', async () => {
    // The clock stands still: should the 250 ms grace end a worker, the next read's wait for a new one costs no budget (D234).
    const storage = openSqlite(join(dir, `budget-${++files}.db`), { clock: new FakeClock() });
    try {
      await seed(storage, ref, 50);
      expect(await storage.find(ref, findPlan(regexWhere))).toHaveLength(50);
      expect(await codeOf(() => storage.find(ref, findPlan(regexWhere), { budgetMs: 0 }))).toBe(11090);
      expect(await codeOf(() => storage.count(ref, regexWhere, { budgetMs: 0 }))).toBe(11090);
      expect(await storage.count(ref, regexWhere)).toBe(50);
    } finally {
      await storage.close();
    }
  });

  it('D2: a :memory: database runs every read inline under its deadline', async () => {
    const storage = openSqlite(':memory:');
    try {
      await seed(storage, ref, 50);
      expect(await codeOf(() => storage.find(ref, findPlan(regexWhere), { budgetMs: 0 }))).toBe(11090);
      expect(await storage.find(ref, findPlan(regexWhere))).toHaveLength(50);
    } finally {
      await storage.close();
    }
  });

  it('D2: worker reads see every write acknowledged before them (read-your-writes, many in parallel)', async () => {
    const storage = openSqlite(join(dir, `ryw-${++files}.db`));
    try {
      await seed(storage, ref, 1);
      const rounds = await Promise.all(
        Array.from({ length: 24 }, async (_, i) => {
          await storage.insert(ref, { objectId: `w${i}`, createdAt: dateValue(2e12 + i), updatedAt: dateValue(2e12 + i), text: `row w${i}` });
          const where: WhereNode = { kind: 'regex', field: { column: 'text', path: [] }, pattern: `^row w${i}$`, flags: '' };
          return (await storage.find(ref, findPlan(where))).map((r) => r.objectId);
        }),
      );
      rounds.forEach((ids, i) => expect(ids).toEqual([`w${i}`]));
    } finally {
      await storage.close();
    }
  });

  it('D2: reads inside a transaction use its connection and see its uncommitted writes', async () => {
    const storage = openSqlite(join(dir, `tx-${++files}.db`));
    try {
      await seed(storage, ref, 3);
      const inside = await storage.transaction(async (tx) => {
        await tx.insert(ref, { objectId: 'new', createdAt: dateValue(3e12), updatedAt: dateValue(3e12), text: 'row new' });
        return { found: (await tx.find(ref, findPlan(regexWhere))).length, counted: await tx.count(ref, regexWhere) };
      });
      expect(inside).toEqual({ found: 4, counted: 4 });
      expect(await codeOf(storage.transaction(async (tx) => tx.find(ref, findPlan(regexWhere), { budgetMs: 0 })))).toBe(11090);
    } finally {
      await storage.close();
    }
  });
});

describe('memory adapter reads under a budget', () => {
  it('D2: a memory scan past its budget answers 11090', async () => {
    const storage = memoryStorage();
    const ref: TableRef = { namespace: 'app', className: 'Doc' };
    await seed(storage, ref, 600);
    expect(await codeOf(() => storage.find(ref, findPlan(regexWhere), { budgetMs: 0 }))).toBe(11090);
    expect(await codeOf(() => storage.count(ref, regexWhere, { budgetMs: 0 }))).toBe(11090);
    expect(await storage.count(ref, regexWhere)).toBe(600);
  });
});

describe('SQLite reads of a large table driven by an index', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svcbase-indexed-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const ref: TableRef = { namespace: 'app', className: 'Big' };
  const between = (from: number, to: number): WhereNode & { kind: 'and' } => ({
    kind: 'and',
    nodes: [
      { kind: 'compare', field: { column: 'n', path: [] }, op: 'gte', value: from },
      { kind: 'compare', field: { column: 'n', path: [] }, op: 'lt', value: to },
    ],
  });

  it('run inline when the index narrows them to few records (a budget of 0 cannot stop them), else on a worker', async () => {
    // A 1 ms stall bound makes 8,000 rows a large table for the row bound alone. The clock stands
    // still: a read of budget 0 waiting for a worker to start (or to replace one terminated after
    // its 1 ms grace) still runs on it (D234 counts waits from submission).
    const storage = openSqlite(join(dir, 'big.db'), { stallBoundMs: 1, clock: new FakeClock() });
    try {
      await storage.ensureColumns(ref, { n: { type: 'Number' }, text: { type: 'String' } });
      await storage.createIndex(ref, { name: 'by_n', columns: ['n'], unique: false });
      await storage.transaction(async (tx) => {
        for (let i = 0; i < 8000; i++) await tx.insert(ref, { objectId: `b${i}`, createdAt: dateValue(1e12 + i), updatedAt: dateValue(1e12 + i), n: i, text: `row ${i}` });
      });
      const zero = { budgetMs: 0 };
      // Few matches through the index: inline on the adapter's connection, the same records as on a worker.
      const few = await storage.find(ref, { ...findPlan(between(100, 150)), order: [{ field: { column: 'n', path: [] }, descending: true }] }, zero);
      expect(few.map((r) => r['n'])).toEqual(Array.from({ length: 50 }, (_, i) => 149 - i));
      expect(await storage.count(ref, between(100, 150), zero)).toBe(50);
      const sum: AggregatePlan = { where: between(0, 10), groupBy: [], aggregates: [{ fn: 'sum', column: 'n', alias: '_sumN' }], groupCount: false, having: { kind: 'all_records' }, order: [], skip: 0, limit: 100, timeZone: 'UTC' };
      expect(await storage.aggregate(ref, sum, zero)).toEqual([{ _sumN: 45 }]);
      const inList: WhereNode = { kind: 'in', field: { column: 'n', path: [] }, negate: false, values: [3, 5, 7] };
      expect(await storage.count(ref, inList, zero)).toBe(3);
      // Too many matches for the probe, a column without an index, or a second column: a worker, under its budget.
      expect(await codeOf(() => storage.find(ref, findPlan(between(0, 5000)), zero))).toBe(11090);
      expect(await codeOf(() => storage.count(ref, { kind: 'compare', field: { column: 'text', path: [] }, op: 'eq', value: 'row 5' }, zero))).toBe(11090);
      const twoColumns: WhereNode = { kind: 'and', nodes: [...between(100, 150).nodes, { kind: 'compare', field: { column: 'text', path: [] }, op: 'eq', value: 'row 120' }] };
      expect(await codeOf(() => storage.find(ref, findPlan(twoColumns), zero))).toBe(11090);
      expect((await storage.find(ref, findPlan(twoColumns))).map((r) => r.objectId)).toEqual(['b120']);
    } finally {
      await storage.close();
    }
  });
});

