import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import { PgSchemaCache } from '../../src/storage/postgres/pg-core.js';

describe('issue 35 item 9: the PostgreSQL schema cache is a bounded LRU', () => {
  it('keeps at most 10,000 tables, evicting the least recently used, not everything at once', () => {
    const cache = new PgSchemaCache(new FakeClock(), 60_000);
    const ref = (i: number) => ({ namespace: 'app', className: `T${i}` });
    const schema = { className: 'T', columns: {}, indexes: [] };
    cache.set(ref(0), schema);
    for (let i = 1; i < 10_000; i++) cache.set(ref(i), schema);
    expect(cache.get(ref(0))).not.toBeNull(); // T0 is now the most recent
    for (let i = 10_000; i < 12_000; i++) cache.set(ref(i), schema);
    expect(cache.size).toBe(10_000);
    expect(cache.get(ref(0))).not.toBeNull();
    expect(cache.get(ref(1))).toBeNull();
    expect(cache.get(ref(11_999))).not.toBeNull();
  });
});
