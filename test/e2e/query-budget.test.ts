import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import { isSvcError } from '../../src/core/errors.js';
import type { Ticker } from '../../src/core/ticker.js';
import { dateValue } from '../../src/core/values.js';
import type { FindPlan } from '../../src/query/plan.js';
import { openSqlite } from '../../src/storage/sqlite/index.js';
import { TEST_APP, startTestServer } from '../helpers/server.js';

// The default bound is 250 ms; the test uses 1 s so that it holds on a heavily loaded CI machine too
// (the hostile query alone runs for many seconds, so a frozen loop still fails it by far).
const STALL_BOUND_MS = 1000;
const ROWS = 20_000;

/**
 * `{"$or":[{"text":{"$regex":...}} x 200]}`: about 200 regex runs per row; unbounded it ran 22.7 s
 * over this table (on a loaded 2-core machine), ten times the test's budget.
 */
function hostileWhere(): string {
  return JSON.stringify({ $or: Array.from({ length: 200 }, (_, i) => ({ text: { $regex: `q${i}z[a-c]+y` } })) });
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

describe('D2: a hostile query never freezes the server', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svcbase-budget-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('D2: /1/timestamp p99 stays under the stall bound while a hostile query runs, and the hostile query answers 11090', async () => {
    const storage = openSqlite(join(dir, 'app.db'), { stallBoundMs: STALL_BOUND_MS });
    const app = { ...TEST_APP, settings: { features: { regex: true }, query: { budgetMs: 2000 } } };
    const server = await startTestServer({ storage, applications: [app] });
    try {
      const ref = { namespace: 'test_app', className: 'Doc' };
      await storage.ensureColumns(ref, { text: { type: 'String' } });
      const filler = 'abcdefghij'.repeat(30);
      await storage.transaction(async (tx) => {
        for (let i = 0; i < ROWS; i++) {
          await tx.insert(ref, { objectId: `d${String(i).padStart(9, '0')}`, createdAt: dateValue(1e12 + i), updatedAt: dateValue(1e12 + i), text: `${filler}${i}` });
        }
      });
      // Warm up: the first read that needs a reader worker starts one.
      const warm = await server.request('GET', `/1/classes/Doc?where=${encodeURIComponent('{"text":{"$regex":"^abc"}}')}&limit=1`);
      expect(warm.status).toBe(200);

      const hostile = server.request('GET', `/1/classes/Doc?where=${encodeURIComponent(hostileWhere())}`);
      const latencies: number[] = [];
      const probe = async () => {
        for (let i = 0; i < 12; i++) {
          const t = performance.now();
          const res = await server.request('GET', '/1/timestamp');
          latencies.push(performance.now() - t);
          expect(res.status).toBe(200);
        }
      };
      await Promise.all(Array.from({ length: 4 }, probe));
      const answer = await hostile;
      expect(answer.status).toBe(400);
      expect(answer.body.code).toBe(11090);
      expect(answer.body.error).toContain('2000 ms'); // the application's budget, not the adapter default
      expect(percentile(latencies, 99)).toBeLessThan(STALL_BOUND_MS);
    } finally {
      await server.close();
    }
  });
});

/** A manual ticker; `nextSweep()` settles when something next asks it to tick (a read began to wait). */
function waitTicker(): Ticker & { tick(): void; nextSweep(): Promise<void> } {
  const ticks = new Set<() => void>();
  let started = (): void => {};
  return {
    nextSweep: () => new Promise<void>((resolve) => (started = resolve)),
    every(_ms, tick) {
      ticks.add(tick);
      started();
      return () => void ticks.delete(tick);
    },
    tick() {
      for (const tick of ticks) tick();
    },
  };
}

describe('D234: slow reads waiting for a reader worker cannot starve other reads', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svcbase-queue-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('D234: a read queued behind a slow read answers 11091 once its budget has passed in the queue; then reads work again', async () => {
    const clock = new FakeClock();
    const ticker = waitTicker();
    const storage = openSqlite(join(dir, 'queue.db'), { readers: 1, clock, ticker });
    const app = { ...TEST_APP, settings: { features: { regex: true }, query: { budgetMs: 2000 } } };
    const server = await startTestServer({ storage, applications: [app] });
    try {
      const re = { namespace: 'test_app', className: 'Re' };
      const games = { namespace: 'test_app', className: 'GameScore' };
      await storage.ensureColumns(re, { s: { type: 'String' } });
      await storage.ensureColumns(games, { name: { type: 'String' } });
      await storage.transaction(async (tx) => {
        for (let i = 0; i < 20; i++) await tx.insert(re, { objectId: `re${i}`, createdAt: dateValue(1e12 + i), updatedAt: dateValue(1e12 + i), s: `${'a'.repeat(40_000)}!` });
        for (const [i, name] of ['alice', 'bob'].entries()) await tx.insert(games, { objectId: `g${i}`, createdAt: dateValue(1e12 + i), updatedAt: dateValue(1e12 + i), name });
      });
      const legit = `/1/classes/GameScore?where=${encodeURIComponent('{"name":{"$regex":"^a"}}')}`;
      // Starts the only reader worker.
      const warm = await server.request('GET', legit);
      expect(warm.status).toBe(200);
      expect(warm.body.results.map((r: { objectId: string }) => r.objectId)).toEqual(['g0']);

      // The audit's hostile read holds the worker (for its own budget of real time)...
      const hostile: FindPlan = { where: { kind: 'regex', field: { column: 's', path: [] }, pattern: '(.*){1,1000}x', flags: '' }, order: [], skip: 0, limit: 100, projection: { kind: 'all' } };
      const slow = Promise.resolve(storage.find(re, hostile, { budgetMs: 1500 })).then(
        () => 'resolved',
        (error: unknown) => (isSvcError(error) ? error.code : String(error)),
      );
      // ...so the legitimate read waits for it; once the wait has used up its 2000 ms it answers at once.
      const waiting = ticker.nextSweep();
      const answer = server.request('GET', legit);
      await Promise.race([waiting, answer]);
      clock.advance(2001);
      ticker.tick();
      const refused = await answer;
      expect(refused.status).toBe(429);
      expect(refused.body.code).toBe(11091);
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(await slow).toBe(11090);
      const again = await server.request('GET', legit);
      expect(again.status).toBe(200);
      expect(again.body.results.map((r: { objectId: string }) => r.objectId)).toEqual(['g0']);
    } finally {
      await server.close();
    }
  });
});
