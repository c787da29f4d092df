import { expect } from 'vitest';
import { DEFAULT_SETTINGS } from '../../src/app/application.js';
import type { StoredRecord } from '../../src/core/values.js';
import { dateValue } from '../../src/core/values.js';
import { parseListQuery } from '../../src/query/parse.js';
import type { ColumnSchema, FindPlan, TableSchema } from '../../src/query/plan.js';
import type { StorageAdapter } from '../../src/storage/port.js';

/**
 * The cases both SQL adapters' plan-shape caches (storage/sql/plan-shapes.ts) are held to: 40
 * records of scalar columns, and finds and counts whose shapes repeat with other values, limits and
 * skips, or change with values of another type (which fold to a constant).
 */
export const SHAPE_TABLE = { namespace: 'app', className: 'Game' };

export const SHAPE_COLUMNS: Readonly<Record<string, ColumnSchema>> = {
  name: { type: 'String' },
  score: { type: 'Number' },
  active: { type: 'Boolean' },
  when: { type: 'Date' },
  owner: { type: 'Pointer', targetClass: '_User' },
  tags: { type: 'Array' },
};

/** Record `i` of the table: name `n<i % 5>`, score `i`, active when even, owner `u<i % 3>`, tag `t<i % 4>`. */
export function shapeRecord(i: number): StoredRecord {
  return {
    objectId: `id${String(i).padStart(3, '0')}`,
    createdAt: dateValue(1_000_000 + i * 1000),
    updatedAt: dateValue(1_000_000 + i * 1000),
    name: `n${i % 5}`,
    score: i,
    active: i % 2 === 0,
    when: dateValue(2_000_000 + i),
    owner: { __type: 'Pointer', className: '_User', objectId: `u${i % 3}` },
    tags: [`t${i % 4}`],
  } as StoredRecord;
}

/** A find plan of `query` (a list's query string) over the table with `schema`, `$regex` allowed. */
export function shapePlan(schema: TableSchema, query: string): FindPlan {
  const settings = { ...DEFAULT_SETTINGS, features: { ...DEFAULT_SETTINGS.features, regex: true } };
  const q = parseListQuery(new URLSearchParams(query), { className: SHAPE_TABLE.className, schema: () => schema, settings });
  if (q.kind !== 'find') throw new Error('expected a find');
  return q.plan;
}

/** `where=<json>`. */
export const whereParam = (where: unknown) => `where=${encodeURIComponent(JSON.stringify(where))}`;

/** Runs every case twice (the second round from the cache) and checks each answer. */
export async function expectShapesAnswerRight(storage: StorageAdapter, schema: TableSchema): Promise<void> {
  const ref = SHAPE_TABLE;
  const w = whereParam;
  const count = (query: string) => storage.count(ref, shapePlan(schema, query).where);
  for (let round = 0; round < 2; round++) {
    for (let k = 0; k < 5; k++) {
      for (const skip of [0, 1, 2]) {
        const got = await storage.find(ref, shapePlan(schema, `${w({ name: `n${k}` })}&order=score&limit=${3 + (k % 2)}&skip=${skip}`));
        const all = Array.from({ length: 40 }, (_, i) => i).filter((i) => i % 5 === k);
        expect(got.map((r) => r.score)).toEqual(all.slice(skip, skip + 3 + (k % 2)));
      }
      const range = await storage.find(ref, shapePlan(schema, `${w({ score: { $gte: k * 5, $lt: k * 5 + 4 } })}&order=-score`));
      expect(range.map((r) => r.score)).toEqual([k * 5 + 3, k * 5 + 2, k * 5 + 1, k * 5]);
      expect(await count(w({ score: { $gte: k * 5 } }))).toBe(40 - k * 5);
    }
    for (const active of [true, false]) expect(await count(w({ active }))).toBe(20);
    for (const u of ['u0', 'u1', 'u2']) expect(await count(w({ owner: { __type: 'Pointer', className: '_User', objectId: u } }))).toBe([14, 13, 13][Number(u.slice(1))]);
    // Same field, values of another type (folds to a constant): a different shape.
    expect(await count(w({ score: 'x' }))).toBe(0);
    expect(await count(w({ score: 3 }))).toBe(1);
    expect(await count(w({ score: null }))).toBe(0);
    expect(await count(w({ score: { $in: [1, 'a', 2, null] } }))).toBe(2);
    expect(await count(w({ score: { $in: [5, 6, 7] } }))).toBe(3);
    expect(await count(w({ when: { $gte: { __type: 'Date', iso: new Date(2_000_030).toISOString() } } }))).toBe(10);
    expect(await count(w({ $or: [{ score: 1 }, { score: 'x' }, { name: 'n2' }] }))).toBe(9);
    expect(await count(w({ $or: [{ score: 1 }, { nope: null }] }))).toBe(40);
    expect(await count(w({ $or: [{ score: 2 }, { nope: null }] }))).toBe(40);
    expect(await count(w({ tags: 't1' }))).toBe(10);
  }
}
