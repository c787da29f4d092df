import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { StoredRecord } from '../../src/core/values.js';
import { dateValue } from '../../src/core/values.js';
import type { WhereNode } from '../../src/query/plan.js';
import { compileCount, compileFind, sqliteAdapterDialect } from '../../src/query/sql/index.js';
import { countShape, findShape } from '../../src/storage/sqlite/query-cache.js';
import { sqliteStorage } from '../../src/storage/sqlite/index.js';
import { SHAPE_COLUMNS, SHAPE_TABLE, expectShapesAnswerRight, shapePlan, shapeRecord, whereParam } from '../helpers/plan-shape-cases.js';

const ref = SHAPE_TABLE;
const plan = shapePlan;
const w = whereParam;

async function seeded() {
  const storage = sqliteStorage({ database: new Database(':memory:') });
  const schema0 = await storage.ensureColumns(ref, SHAPE_COLUMNS);
  const records: StoredRecord[] = [];
  for (let i = 0; i < 40; i++) {
    const r = shapeRecord(i);
    records.push(r);
    await storage.insert(ref, r);
  }
  return { storage, schema0, records };
}

describe('sqlite find/count SQL cache', () => {
  it('reuses a shape with new values and returns the right rows', async () => {
    const { storage, schema0 } = await seeded();
    await expectShapesAnswerRight(storage, schema0);
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
