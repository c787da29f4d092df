import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SvcError } from '../../src/core/errors.js';
import type { AggregatePlan, FindPlan, WhereNode } from '../../src/query/plan.js';
import { postgresStorage } from '../../src/storage/postgres/index.js';
import type { PgPendingQuery } from '../../src/storage/postgres/pg-client.js';
import { withinBudget } from '../../src/storage/postgres/pg-read-budget.js';
import type { StorageAdapter, TableRef } from '../../src/storage/port.js';
import { type TestSchema, createTestSchema, postgresAvailable } from './pg-test-db.js';

/**
 * Read budgets on PostgreSQL (issue 36): a find, count or aggregate running past its budget is
 * cancelled on the server and answers 11090, as on SQLite and in memory; the connection serves the
 * next statement. The slow read is a regex over 200,000 rows (PostgreSQL reads them all: no index
 * serves an unanchored pattern: 0.3-0.4 s here), against a budget of 50 ms.
 */
const available = await postgresAvailable('pg-read-budget');

const ROWS = 200_000;
const ref: TableRef = { namespace: 'budget', className: 'Slow' };
const field = { column: 'text', path: [] };
const slowWhere: WhereNode = { kind: 'regex', field, pattern: '(a|b|c)*z.*y$', flags: 'i' };
const findPlan = (where: WhereNode): FindPlan => ({ where, order: [], skip: 0, limit: 10, projection: { kind: 'all' } });

async function codeOf(work: () => unknown): Promise<number | 'none'> {
  try {
    await work();
    return 'none';
  } catch (error) {
    if (error instanceof SvcError) return error.code;
    throw error;
  }
}

describe.skipIf(!available)('PostgreSQL read budgets', () => {
  let schema: TestSchema;
  let storage: StorageAdapter;

  beforeAll(async () => {
    schema = await createTestSchema('svc_budget');
    const sql = schema.client({ max: 2 });
    storage = postgresStorage({ sql, queryBudgetMs: 60_000 });
    await storage.ensureColumns(ref, { text: { type: 'String' }, n: { type: 'Number' } });
    await sql.unsafe(
      `INSERT INTO "budget__Slow" ("objectId", "createdAt", "updatedAt", "text", "n")
       SELECT 'r' || i, 1700000000000 + i, 1700000000000 + i, md5(i::text) || md5((i * 7)::text), i FROM generate_series(1, ${ROWS}) AS i`,
    );
  }, 60_000);
  afterAll(async () => {
    await storage?.close();
    await schema?.drop();
  });

  it('a find, count and aggregate past their budget answer 11090; the same reads within a budget answer', async () => {
    const sum: AggregatePlan = { where: slowWhere, groupBy: [], aggregates: [{ fn: 'sum', column: 'n', alias: '_sumN' }], groupCount: false, having: { kind: 'all_records' }, order: [], skip: 0, limit: 100, timeZone: 'UTC' };
    const tight = { budgetMs: 50 };
    expect(await codeOf(() => storage.find(ref, findPlan(slowWhere), tight))).toBe(11090);
    expect(await codeOf(() => storage.count(ref, slowWhere, tight))).toBe(11090);
    expect(await codeOf(() => storage.aggregate(ref, sum, tight))).toBe(11090);
    // The connections were not lost: the same reads answer under the adapter's default budget.
    expect(await storage.count(ref, slowWhere)).toBe(await storage.count(ref, slowWhere, { budgetMs: 60_000 }));
    expect(await storage.count(ref, { kind: 'compare', field: { column: 'objectId', path: [] }, op: 'eq', value: 'r7' }, { budgetMs: 5000 })).toBe(1);
  }, 60_000);

  it("the adapter's default budget applies to reads whose caller names none", async () => {
    const strict = postgresStorage({ sql: schema.client({ max: 1 }), queryBudgetMs: 50 });
    expect(await codeOf(() => strict.count(ref, slowWhere))).toBe(11090);
    expect(await strict.count(ref, slowWhere, { budgetMs: 60_000 })).toBeGreaterThanOrEqual(0);
  }, 60_000);
});

/**
 * A pending statement as postgres.js keeps one: `cancel()` calls its canceller once and forgets it;
 * while `describeFirst` is true a cancel stops nothing (the backend is idle between the describe and
 * the execution), afterwards it stops the statement with 57014.
 */
function fakeStatement(describing: boolean) {
  let reject: (error: unknown) => void = () => undefined;
  let resolve: (rows: never[]) => void = () => undefined;
  const answer = new Promise<never[]>((ok, fail) => ((resolve = ok), (reject = fail)));
  const statement = {
    cancels: 0,
    describeFirst: describing,
    then: answer.then.bind(answer),
    canceller: null as null | ((query: unknown) => void),
    cancel: () => {
      statement.canceller?.(statement);
      statement.canceller = null;
    },
    settle: () => resolve([]),
  };
  statement.canceller = () => {
    statement.cancels++;
    if (!statement.describeFirst) reject(Object.assign(new Error('canceling statement due to user request'), { code: '57014' }));
  };
  return statement;
}

describe('a read budget on PostgreSQL, on a fake statement', () => {
  it('cancels once more when the first cancel met the statement still being described', async () => {
    vi.useFakeTimers();
    try {
      const statement = fakeStatement(true);
      const read = codeOf(() => withinBudget(statement as unknown as PgPendingQuery, statement, 50));
      await vi.advanceTimersByTimeAsync(50);
      expect(statement.cancels).toBe(1);
      await vi.advanceTimersByTimeAsync(200);
      expect(statement.cancels).toBe(1);
      statement.describeFirst = false;
      await vi.advanceTimersByTimeAsync(10);
      expect(statement.cancels).toBe(2);
      expect(await read).toBe(11090);
    } finally {
      vi.useRealTimers();
    }
  });

  it('cancels a statement already executing exactly once, and nothing after it settles', async () => {
    vi.useFakeTimers();
    try {
      const running = fakeStatement(false);
      const read = codeOf(() => withinBudget(running as unknown as PgPendingQuery, running, 50));
      await vi.advanceTimersByTimeAsync(5000);
      expect([await read, running.cancels]).toEqual([11090, 1]);

      const settled = fakeStatement(true);
      const fast = withinBudget(settled as unknown as PgPendingQuery, settled, 50);
      await vi.advanceTimersByTimeAsync(60);
      settled.settle();
      expect(await fast).toEqual([]);
      settled.describeFirst = false;
      await vi.advanceTimersByTimeAsync(5000);
      expect(settled.cancels).toBe(1);
    } finally {
      vi.useRealTimers();
    }
  });
});
