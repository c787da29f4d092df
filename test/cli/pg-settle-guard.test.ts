import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { pgSettleGuard } from '../../src/cli/pg-settle-guard.js';
import type { PgClient, PgPendingQuery, PgRows } from '../../src/storage/postgres/pg-client.js';

/** A driver stand-in whose statements settle when the test says, and which counts the ones it ran (lazily, on await, as postgres does). */
function driver() {
  const settle = new Map<string, (rows: PgRows) => void>();
  const ran: string[] = [];
  const pending = (query: string): PgPendingQuery => {
    let started: Promise<PgRows> | undefined;
    const start = () => (started ??= new Promise<PgRows>((resolve) => {
      ran.push(query);
      settle.set(query, resolve);
    }));
    return { then: (ok, fail) => start().then(ok, fail), values: () => ({ then: (ok, fail) => start().then((rows) => rows.map((r) => Object.values(r))).then(ok, fail) }) };
  };
  const sql: PgClient = {
    unsafe: (query) => pending(query),
    reserve: async () => ({ unsafe: (query: string) => pending(query), release: () => {} }),
    end: async () => {},
  };
  return { sql, ran, settle: (query: string) => settle.get(query)?.([{ n: 1 }]) };
}

describe('pgSettleGuard (porsager/postgres#1208: a statement dropped by a closing connection never settles)', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('passes statements through lazily and untouched while no connection closes', async () => {
    const { sql, ran, settle } = driver();
    const guard = pgSettleGuard(sql, 1500);
    const query = guard.client.unsafe('SELECT 1');
    expect(ran).toEqual([]);
    const result = Promise.resolve(query);
    await vi.advanceTimersByTimeAsync(0);
    expect(ran).toEqual(['SELECT 1']);
    settle('SELECT 1');
    expect(await result).toEqual([{ n: 1 }]);
    const values = Promise.resolve(guard.client.unsafe('SELECT 2').values());
    await vi.advanceTimersByTimeAsync(0);
    settle('SELECT 2');
    expect(await values).toEqual([[1]]);
  });

  it('rejects a statement still unsettled a grace after a connection closed, with CONNECTION_CLOSED; later statements are not touched', async () => {
    const { sql, settle } = driver();
    const guard = pgSettleGuard(sql, 1500);
    const stuck = Promise.resolve(guard.client.unsafe('UPDATE stuck')).then(() => 'settled', (error: { code?: string }) => error.code);
    const slowButAlive = Promise.resolve(guard.client.unsafe('SELECT slow')).then(() => 'settled', (error: { code?: string }) => error.code);
    await vi.advanceTimersByTimeAsync(0);
    guard.connectionClosed();
    const after = Promise.resolve(guard.client.unsafe('SELECT after')).then(() => 'settled', (error: { code?: string }) => error.code);
    await vi.advanceTimersByTimeAsync(1000);
    settle('SELECT slow');
    await vi.advanceTimersByTimeAsync(600);
    expect(await stuck).toBe('CONNECTION_CLOSED');
    expect(await slowButAlive).toBe('settled');
    settle('SELECT after');
    expect(await after).toBe('settled');
  });

  it('guards statements on a reserved connection (transactions) the same way', async () => {
    const { sql } = driver();
    const guard = pgSettleGuard(sql, 1500);
    const connection = await guard.client.reserve();
    const stuck = Promise.resolve(connection.unsafe('BEGIN')).then(() => 'settled', (error: { code?: string }) => error.code);
    await vi.advanceTimersByTimeAsync(0);
    guard.connectionClosed();
    await vi.advanceTimersByTimeAsync(1500);
    expect(await stuck).toBe('CONNECTION_CLOSED');
  });
});
