import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '../../src/app/application.js';
import type { StoredRecord } from '../../src/core/values.js';
import { dateValue } from '../../src/core/values.js';
import { parseListQuery } from '../../src/query/parse.js';
import type { FindPlan, TableSchema, WhereNode } from '../../src/query/plan.js';
import { compileCount, compileFind, sqliteAdapterDialect } from '../../src/query/sql/index.js';
import { countShape, findShape } from '../../src/storage/sqlite/query-cache.js';
import { sqliteStorage } from '../../src/storage/sqlite/index.js';

const ref = { namespace: 'app', className: 'Game' };

function plan(schema: TableSchema, query: string): FindPlan {
  const q = parseListQuery(new URLSearchParams(query), { className: 'Game', schema: () => schema, settings: { ...DEFAULT_SETTINGS, features: { ...DEFAULT_SETTINGS.features, regex: true } } });
  if (q.kind !== 'find') throw new Error('expected a find');
  return q.plan;
}
const w = (where: unknown) => `where=${encodeURIComponent(JSON.stringify(where))}`;

async function seeded() {
  const storage = sqliteStorage({ database: new Database(':memory:') });
  const schema0 = await storage.ensureColumns(ref, {
    name: { type: 'String' },
    score: { type: 'Number' },
    active: { type: 'Boolean' },
    when: { type: 'Date' },
    owner: { type: 'Pointer', targetClass: '_User' },
    tags: { type: 'Array' },
  });
  const records: StoredRecord[] = [];
  for (let i = 0; i < 40; i++) {
    const r = {
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
    records.push(r);
    await storage.insert(ref, r);
  }
  return { storage, schema0, records };
}

describe('sqlite find/count SQL cache', () => {
  it('reuses a shape with new values and returns the right rows', async () => {
    const { storage, schema0 } = await seeded();
    for (let round = 0; round < 2; round++) {
      for (let k = 0; k < 5; k++) {
        const got = await storage.find(ref, plan(schema0, `${w({ name: `n${k}` })}&limit=3&skip=${k % 2}`));
        const all = Array.from({ length: 40 }, (_, i) => i).filter((i) => i % 5 === k);
        expect(got.map((r) => r.score)).toEqual(all.slice(k % 2, (k % 2) + 3));
        const range = await storage.find(ref, plan(schema0, `${w({ score: { $gte: k * 5, $lt: k * 5 + 4 } })}&order=-score`));
        expect(range.map((r) => r.score)).toEqual([k * 5 + 3, k * 5 + 2, k * 5 + 1, k * 5]);
        expect(await storage.count(ref, plan(schema0, w({ score: { $gte: k * 5 } })).where)).toBe(40 - k * 5);
      }
      for (const active of [true, false]) expect(await storage.count(ref, plan(schema0, w({ active })).where)).toBe(20);
      for (const u of ['u0', 'u1', 'u2']) {
        const c = await storage.count(ref, plan(schema0, w({ owner: { __type: 'Pointer', className: '_User', objectId: u } })).where);
        expect(c).toBe([14, 13, 13][Number(u.slice(1))]);
      }
      // Same field, values of another type (folds to a constant): a different shape.
      expect(await storage.count(ref, plan(schema0, w({ score: 'x' })).where)).toBe(0);
      expect(await storage.count(ref, plan(schema0, w({ score: 3 })).where)).toBe(1);
      expect(await storage.count(ref, plan(schema0, w({ score: null })).where)).toBe(0);
      expect(await storage.count(ref, plan(schema0, w({ score: { $in: [1, 'a', 2, null] } })).where)).toBe(2);
      expect(await storage.count(ref, plan(schema0, w({ score: { $in: [5, 6, 7] } })).where)).toBe(3);
      expect(await storage.count(ref, plan(schema0, w({ when: { $gte: { __type: 'Date', iso: new Date(2_000_030).toISOString() } } })).where)).toBe(10);
      expect(await storage.count(ref, plan(schema0, w({ $or: [{ score: 1 }, { score: 'x' }, { name: 'n2' }] })).where)).toBe(9);
      expect(await storage.count(ref, plan(schema0, w({ $or: [{ score: 1 }, { nope: null }] })).where)).toBe(40);
      expect(await storage.count(ref, plan(schema0, w({ $or: [{ score: 2 }, { nope: null }] })).where)).toBe(40);
      expect(await storage.count(ref, plan(schema0, w({ tags: 't1' })).where)).toBe(10);
    }
    await storage.close();
  });

  it('starts afresh after a schema change', async () => {
    const { storage, schema0, records } = await seeded();
    const before = await storage.find(ref, plan(schema0, `${w({ extra: null })}&limit=2`));
    expect(before.map((r) => r.objectId)).toEqual(['id000', 'id001']);
    expect(await storage.count(ref, plan(schema0, w({ extra: 'a' })).where)).toBe(0);
    const schema1 = await storage.ensureColumns(ref, { extra: { type: 'String' } });
    await storage.update(ref, records[0]!.objectId, [{ kind: 'set', column: 'extra', path: [], value: 'a' }], dateValue(9_000_000));
    // Same plan shapes as before, now against a column that exists.
    expect(await storage.count(ref, plan(schema1, w({ extra: 'a' })).where)).toBe(1);
    const after = await storage.find(ref, plan(schema1, `${w({ extra: null })}&limit=2`));
    expect(after.map((r) => r.objectId)).toEqual(['id001', 'id002']);
    const rows = await storage.find(ref, plan(schema1, `${w({ extra: 'a' })}&limit=2`));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ objectId: 'id000', extra: 'a' });
    await storage.close();
  });

  it('reads the parameters off the plan exactly as the compiler binds them', async () => {
    const { storage, schema0 } = await seeded();
    const schema = (await storage.getSchema(ref))!;
    const view = { namespace: 'app', schema: () => schema };
    const queries = [
      w({ name: 'n1' }),
      `${w({ score: { $gt: 3, $lte: 9 }, active: false })}&order=-score,name&limit=7&skip=2`,
      w({ $or: [{ name: { $in: ['a', 'b', null] } }, { when: { $lt: { __type: 'Date', iso: '2020-01-01T00:00:00.000Z' } } }] }),
      w({ owner: { __type: 'Pointer', className: '_User', objectId: 'u1' }, name: { $ne: 'x' } }),
      w({ owner: { __type: 'Pointer', className: 'Other', objectId: 'u1' } }),
      w({ name: { $regex: '^n', $options: 'i' }, score: { $exists: true } }),
      w({ score: { $nin: [1, 2] }, missing: { $exists: false } }),
      w({ createdAt: { $gte: { __type: 'Date', iso: '1970-01-01T00:16:40.000Z' } }, objectId: { $in: ['id001', 'id002'] } }),
    ];
    for (const q of queries) {
      const p = plan(schema0, q);
      const shape = findShape(schema, p);
      const compiled = compileFind('Game', p, view, sqliteAdapterDialect);
      expect(shape, q).not.toBeNull();
      expect(shape!.parameters, q).toEqual(compiled.parameters);
      const count = countShape(schema, p.where as WhereNode);
      expect(count!.parameters, q).toEqual(compileCount('Game', p.where, view, sqliteAdapterDialect).parameters);
    }
    // JSON columns are not cached (compiled every time).
    expect(findShape(schema, plan(schema0, w({ tags: 't1' })))).toBeNull();
    await storage.close();
  });
});
