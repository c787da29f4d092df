import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { memoryStorage } from '../../src/storage/memory/index.js';
import { openSqlite } from '../../src/storage/sqlite/index.js';
import { dateValue } from '../../src/core/values.js';
import type { StoredRecord, Value } from '../../src/core/values.js';
import { parseListQuery } from '../../src/query/parse.js';
import { SETTINGS } from './helpers/context.js';
import { Fixture } from './helpers/fixture.js';

/** 1,000 values (the parser's MAX_LIST_VALUES) of every JSON-comparable kind. */
function values(): Value[] {
  const out: Value[] = [null, true];
  for (let i = 0; out.length < 1000; i++) {
    const kind = i % 5;
    if (kind === 0) out.push(`s${i}`);
    else if (kind === 1) out.push(i);
    else if (kind === 2) out.push({ __type: 'Date', iso: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString() } as unknown as Value);
    else if (kind === 3) out.push({ __type: 'Pointer', className: 'P', objectId: `p${i}` } as unknown as Value);
    else out.push(i % 100 === 4 ? [i, `a${i}`] : `t${i}`);
  }
  return out;
}

function fixture(list: Value[], extra: StoredRecord[] = []): Fixture {
  const records: StoredRecord[] = [...extra];
  const pick = (i: number) => list[(i * 37) % list.length]!;
  for (let i = 0; i < (list.length > 0 ? 40 : 0); i++) {
    const at = dateValue(Date.UTC(2026, 0, 1) + i);
    const tags = i % 4 === 0 ? [pick(i), 'other'] : i % 4 === 1 ? ['nothing', -1] : [pick(i), pick(i + 1), pick(i + 2)];
    const fields: Record<string, Value> = { tags: i % 7 === 6 ? [] : tags, doc: { k: i % 3 === 0 ? pick(i) : `miss${i}` } };
    records.push({ objectId: `id${String(i).padStart(4, '0')}`, createdAt: at, updatedAt: at, ...fields } as StoredRecord);
  }
  // One record holding every value, one holding the first three: `$all` has something to find.
  for (const [i, tags] of (list.length > 0 ? [list, list.slice(0, 3)] : []).entries()) {
    const at = dateValue(Date.UTC(2026, 0, 2) + i);
    records.push({ objectId: `all${i}`, createdAt: at, updatedAt: at, tags, doc: { k: list[2]! } } as unknown as StoredRecord);
  }
  const schema = { className: 'T', columns: { tags: { type: 'Array' as const }, doc: { type: 'Object' as const } }, indexes: [] };
  return new Fixture([{ schema, records }]);
}

describe('large $in/$nin/$all lists', () => {
  it('D10: 1,000 values on an Array column and an Object sub-key compile within SQLite limits and match the evaluator', () => {
    const list = values();
    const f = fixture(list);
    try {
      const ctx = { className: 'T', schema: (c: string) => f.schema(c), settings: SETTINGS };
      const wheres = [
        { tags: { $in: list } },
        { tags: { $nin: list } },
        { tags: { $all: list } },
        { tags: { $all: list.slice(0, 3) } },
        { 'doc.k': { $in: list } },
        { 'doc.k': { $nin: list } },
        { 'doc.k': { $all: list } },
        { $or: list.slice(0, 900).map((v) => ({ tags: v })) },
      ];
      for (const where of wheres) {
        const q = parseListQuery(new URLSearchParams({ where: JSON.stringify(where) }), ctx);
        if (q.kind !== 'find') throw new Error('expected a find');
        const expected = f.memoryFind('T', q.plan);
        if (!('$all' in Object.values(where)[0]!)) expect(expected.length, JSON.stringify(where).slice(0, 60)).toBeGreaterThan(0);
        expect(f.sqlFind('T', q.plan), JSON.stringify(where).slice(0, 60)).toEqual(expected);
      }
    } finally {
      f.close();
    }
  });

  it('D10: the memory and SQLite adapters answer 1,000-value $in/$nin/$all identically', async () => {
    const list = values();
    const source = fixture(list);
    const schema = source.schema('T')!;
    const records = source.memoryFind('T', { where: { kind: 'all_records' }, order: [], skip: 0, limit: 1000, projection: { kind: 'all' } });
    source.close();
    // Agreement, not speed: a 1,000-value $nin over JSON columns may pass the default 250 ms stall bound on a loaded machine.
    const adapters = [memoryStorage(), openSqlite(':memory:', { stallBoundMs: 10_000 })];
    const ref = { namespace: 'app', className: 'T' };
    for (const adapter of adapters) {
      await adapter.ensureColumns(ref, schema.columns);
      for (const record of records) await adapter.insert(ref, record);
    }
    const ctx = { className: 'T', schema: () => schema, settings: SETTINGS };
    for (const op of ['$in', '$nin', '$all']) {
      for (const field of ['tags', 'doc.k']) {
        const q = parseListQuery(new URLSearchParams({ where: JSON.stringify({ [field]: { [op]: list } }), limit: '1000' }), ctx);
        if (q.kind !== 'find') throw new Error('expected a find');
        const [memory, sqlite] = await Promise.all(adapters.map(async (a) => (await a.find(ref, q.plan)).map((r) => r.objectId)));
        expect(sqlite, `${field} ${op}`).toEqual(memory);
        if (op !== '$all' || field === 'tags') expect(memory!.length, `${field} ${op}`).toBeGreaterThan(0);
      }
    }
    for (const adapter of adapters) await adapter.close();
  });

  it('D10: bound value lists agree with the evaluator on random data (lists of 8 to 24 values)', () => {
    const pool: fc.Arbitrary<Value> = fc.oneof(
      fc.constantFrom<Value>(null, true, false, 0, 1, 1.5, -2, 2 ** 53, 'a', 'B', '', 'é', '😀'),
      fc.string({ maxLength: 3 }),
      fc.integer({ min: -5, max: 5 }),
      fc.integer({ min: 0, max: 4 }).map((d) => ({ __type: 'Date', iso: new Date(Date.UTC(2026, 0, 1 + d)).toISOString() }) as unknown as Value),
      fc.tuple(fc.constantFrom('P', 'Q'), fc.constantFrom('x', 'y', 'z')).map(([className, objectId]) => ({ __type: 'Pointer', className, objectId }) as unknown as Value),
    );
    const ops = ['$in', '$nin', '$all'] as const;
    fc.assert(
      fc.property(fc.array(fc.array(pool, { maxLength: 4 }), { minLength: 6, maxLength: 6 }), fc.array(pool, { minLength: 8, maxLength: 24 }), fc.constantFrom(...ops), fc.boolean(), (tagSets, list, op, onDoc) => {
        const extra = tagSets.map((tags, i) => {
          const at = dateValue(Date.UTC(2025, 0, 1) + i);
          return { objectId: `r${i}`, createdAt: at, updatedAt: at, tags, doc: { k: tags[0] ?? null } } as unknown as StoredRecord;
        });
        const f = fixture([], extra);
        try {
          const ctx = { className: 'T', schema: (c: string) => f.schema(c), settings: SETTINGS };
          const where = { [onDoc ? 'doc.k' : 'tags']: { [op]: list } };
          const q = parseListQuery(new URLSearchParams({ where: JSON.stringify(where) }), ctx);
          if (q.kind !== 'find') throw new Error('expected a find');
          expect(f.sqlFind('T', q.plan)).toEqual(f.memoryFind('T', q.plan));
        } finally {
          f.close();
        }
      }),
      { seed: 20261123, numRuns: 100 },
    );
  });
});
