import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { isSvcError } from '../../src/core/errors.js';
import { dateValue } from '../../src/core/values.js';
import type { AggregatePlan, FindPlan, WhereNode } from '../../src/query/plan.js';
import { memoryStorage } from '../../src/storage/memory/index.js';
import type { StorageAdapter, TableRef } from '../../src/storage/port.js';
import { ReaderPool } from '../../src/storage/sqlite/reader-pool.js';
import { openSqlite } from '../../src/storage/sqlite/index.js';

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
  });
}

const read = (sql: string) => ({ kind: 'count' as const, sql, parameters: [] });

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

describe('SQLite reads under a budget', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svcbase-readers-'));
  let files = 0;
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const ref: TableRef = { namespace: 'app', className: 'Doc' };

  it('D2: a worker read over its budget answers 11090 (file database)', async () => {
    const storage = openSqlite(join(dir, `budget-${++files}.db`));
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
    // A 1 ms stall bound makes 8,000 rows a large table for the row bound alone.
    const storage = openSqlite(join(dir, 'big.db'), { stallBoundMs: 1 });
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

