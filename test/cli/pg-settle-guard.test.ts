import { describe, expect, it } from 'vitest';
import { type GuardTimers, pgSettleGuard } from '../../src/cli/pg-settle-guard.js';
import { unreachableStore } from '../../src/core/store-failure.js';
import type { PgClient, PgPendingQuery, PgRows } from '../../src/storage/postgres/pg-client.js';

/** Timers that move only when told to: `advance(ms)` runs what falls due. */
function manualTimers(): GuardTimers & { advance(ms: number): void; readonly armed: number } {
  let now = 0;
  const due = new Map<object, { at: number; run: () => void }>();
  return {
    now: () => now,
    setTimer(run, ms) {
      const handle = {};
      due.set(handle, { at: now + ms, run });
      return handle;
    },
    clearTimer: (timer) => void due.delete(timer as object),
    advance(ms) {
      now += ms;
      for (const [handle, timer] of [...due]) {
        if (timer.at > now) continue;
        due.delete(handle);
        timer.run();
      }
    },
    get armed() {
      return due.size;
    },
  };
}

/** A driver whose statements settle only when the test says so; `started` lists their texts in order. */
function fakeDriver() {
  const started: string[] = [];
  const settle: Array<(rows: PgRows) => void> = [];
  const pending = (query: string): PgPendingQuery => {
    let promise: Promise<PgRows> | undefined;
    const run = () => (promise ??= (started.push(query), new Promise<PgRows>((resolve) => settle.push(resolve))));
    return { then: (ok, fail) => run().then(ok, fail), values: () => ({ then: (ok, fail) => run().then(() => [] as ReadonlyArray<readonly unknown[]>).then(ok, fail) }) };
  };
  const sql: PgClient = {
    unsafe: (query) => pending(query),
    reserve: async () => ({ unsafe: (query: string) => pending(query), release: () => undefined }),
    end: async () => undefined,
  };
  return { sql, started, settle };
}

const outcome = (promise: PromiseLike<unknown>) => Promise.resolve(promise).then(() => 'settled', (error: unknown) => error);
const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('statements the postgres driver strands around a closed connection (issue 40, D153)', () => {
  it('a statement in flight when a connection closes answers CONNECTION_CLOSED (11230) once the grace has passed', async () => {
    const timers = manualTimers();
    const driver = fakeDriver();
    const guard = pgSettleGuard(driver.sql, { graceMs: 2000, windowMs: 10_000, timers });
    const stuck = outcome(guard.client.unsafe('SELECT 1'));
    await tick();
    expect(timers.armed).toBe(0);
    timers.advance(60_000);
    guard.connectionClosed();
    timers.advance(1999);
    await tick();
    timers.advance(1);
    const error = await stuck;
    expect((error as { code: string }).code).toBe('CONNECTION_CLOSED');
    expect(unreachableStore(error)).toBe('database');
  });

  it('statements started within the window after a close are bounded too, schema statements and later ones are not', async () => {
    const timers = manualTimers();
    const driver = fakeDriver();
    const guard = pgSettleGuard(driver.sql, { graceMs: 2000, windowMs: 10_000, timers });
    guard.connectionClosed();
    timers.advance(9000);
    const read = outcome(guard.client.unsafe('SELECT 2').values());
    const ddl = outcome(guard.client.unsafe('CREATE INDEX IF NOT EXISTS "i" ON "t" ("a")'));
    const transaction = await guard.client.reserve();
    const inTransaction = outcome(transaction.unsafe('UPDATE "t" SET "a" = 1'));
    await tick();
    expect(driver.started).toEqual(['SELECT 2', 'CREATE INDEX IF NOT EXISTS "i" ON "t" ("a")', 'UPDATE "t" SET "a" = 1']);
    timers.advance(2000);
    expect((await read as { code: string }).code).toBe('CONNECTION_CLOSED');
    expect((await inTransaction as { code: string }).code).toBe('CONNECTION_CLOSED');
    // Past the window: no timer at all, however long the statement runs.
    const late = outcome(guard.client.unsafe('SELECT 3'));
    await tick();
    expect(timers.armed).toBe(0);
    timers.advance(3_600_000);
    driver.settle[3]!([] as unknown as PgRows);
    expect(await late).toBe('settled');
    driver.settle[1]!([] as unknown as PgRows);
    expect(await ddl).toBe('settled');
  });

  it('a statement that settles in time keeps its answer and leaves no timer behind', async () => {
    const timers = manualTimers();
    const driver = fakeDriver();
    const guard = pgSettleGuard(driver.sql, { graceMs: 2000, windowMs: 10_000, timers });
    guard.connectionClosed();
    const rows = Object.assign([{ n: 1 }], { count: 1 }) as PgRows;
    const answer = Promise.resolve(guard.client.unsafe('SELECT 1'));
    await tick();
    expect(timers.armed).toBe(1);
    driver.settle[0]!(rows);
    expect(await answer).toBe(rows);
    expect(timers.armed).toBe(0);
  });

  it('statements are still sent only when awaited (the driver is lazy)', async () => {
    const driver = fakeDriver();
    const guard = pgSettleGuard(driver.sql, { timers: manualTimers() });
    guard.client.unsafe('SELECT 1');
    await tick();
    expect(driver.started).toEqual([]);
  });
});
