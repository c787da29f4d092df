import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import { LruMap } from '../../src/core/lru.js';
import { type TestServer, startTestServer } from '../helpers/server.js';

/** Sends `count` requests, `parallel` at a time, and returns how many answered each status. */
async function flood(count: number, parallel: number, send: (i: number) => Promise<Response>): Promise<Record<number, number>> {
  const statuses: Record<number, number> = {};
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < count) {
        const res = await send(next++);
        await res.arrayBuffer();
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
      }
    }),
  );
  return statuses;
}

describe('issue 35 item 9: the class-permission cache is bounded', () => {
  let server: TestServer;
  // A fake clock: no cached entry expires while the flood runs, however slow the machine.
  const clock = new FakeClock(Date.now());
  beforeAll(async () => {
    server = await startTestServer({ clock });
  });
  afterAll(() => server.close());

  const store = () => server.service.registry.records!.classPermissions;

  it('issue 35 item 9: thousands of distinct nonexistent class names over HTTP leave the cache at its cap, and real tables keep their entries', async () => {
    // A real table, closed to the REST key for find, read once so its permissions are cached.
    expect((await server.request('POST', '/1/classes/Ledger', { body: { amount: 1 }, auth: 'master' })).status).toBe(201);
    const clp = await server.request('PUT', '/1/schemas/Ledger', { body: { classLevelPermissions: { find: {}, get: {} } }, auth: 'master' });
    expect(clp.status).toBe(200);
    expect((await server.request('GET', '/1/classes/Ledger')).status).toBe(403);
    expect(store().cacheSize().tables).toBeGreaterThanOrEqual(1);
    const tablesBefore = store().cacheSize().tables;

    const statuses = await flood(3_000, 16, (i) => fetch(`${server.url}/1/classes/NoSuchClass${i}`, { headers: { 'X-Svc-Application-Id': 'test-app', 'X-Svc-REST-API-Key': 'test-rest-key' } }));
    expect(statuses[200]).toBe(3_000);
    // 3,000 names asked, 1,000 kept: the negative cache's cap; none of them reached the tables' cache.
    expect(store().cacheSize()).toEqual({ tables: tablesBefore, missing: 1_000 });
    // The real table's rule still holds and was not evicted by the flood; reloaded after its
    // time-to-live it stays with the tables.
    expect((await server.request('GET', '/1/classes/Ledger')).status).toBe(403);
    clock.advance(60_000);
    expect((await server.request('GET', '/1/classes/Ledger')).status).toBe(403);
    expect(store().cacheSize()).toEqual({ tables: tablesBefore, missing: 1_000 });
  });
});

describe('LruMap', () => {
  it('evicts the least recently used entry past its size; get refreshes, peek does not', () => {
    const lru = new LruMap<string, number>(2);
    lru.set('a', 1).set('b', 2);
    expect(lru.get('a')).toBe(1); // a is now the most recent
    lru.set('c', 3); // evicts b
    expect([lru.has('a'), lru.has('b'), lru.has('c'), lru.size]).toEqual([true, false, true, 2]);
    expect(lru.peek('a')).toBe(1); // a stays the least recent after a peek
    lru.set('d', 4); // evicts a
    expect([lru.has('a'), lru.has('c'), lru.has('d')]).toEqual([false, true, true]);
    lru.set('c', 30); // an update refreshes without evicting
    expect([lru.size, lru.get('c')]).toEqual([2, 30]);
    expect(() => new LruMap(0)).toThrow(/positive integer/);
  });
});
