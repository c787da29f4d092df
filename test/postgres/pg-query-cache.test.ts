import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withAclFilter } from '../../src/access/acl-filter.js';
import { principalsOf } from '../../src/access/principals.js';
import { dateValue } from '../../src/core/values.js';
import type { TableSchema } from '../../src/query/plan.js';
import { compileCount, compileFind, postgresDialect } from '../../src/query/sql/index.js';
import type { StorageAdapter } from '../../src/storage/port.js';
import { postgresStorage } from '../../src/storage/postgres/index.js';
import { PG_SHAPES } from '../../src/storage/postgres/pg-shapes.js';
import { countShape, findShape } from '../../src/storage/sql/plan-shapes.js';
import { SHAPE_COLUMNS, SHAPE_TABLE, expectShapesAnswerRight, shapePlan, shapeRecord, whereParam } from '../helpers/plan-shape-cases.js';
import { type TestSchema, createTestSchema, postgresAvailable } from './pg-test-db.js';

/**
 * The PostgreSQL adapter's find/count SQL per plan shape (storage/sql/plan-shapes.ts, PG_SHAPES): a
 * shape reused with other values, limits, skips and ACL principals answers as a fresh compilation
 * would, and the parameters read off a plan are exactly the ones the postgres compiler binds.
 */
const available = await postgresAvailable('pg-query-cache');
const ACL_BY: Record<string, { [principal: string]: { read: boolean } }> = { '*': { '*': { read: true } }, u1: { u1: { read: true } }, 'role:mods': { 'role:mods': { read: true } } };
const ref = SHAPE_TABLE;
const plan = shapePlan;
const w = whereParam;

describe.skipIf(!available)('PostgreSQL find/count SQL per plan shape', () => {
  let db: TestSchema;
  let pg: StorageAdapter;
  let schema0: TableSchema;
  beforeAll(async () => {
    db = await createTestSchema('svc_qcache');
    pg = postgresStorage({ sql: db.client({ max: 4 }) });
    schema0 = await pg.ensureColumns(ref, { ...SHAPE_COLUMNS, ACL: { type: 'Object' } });
    for (let i = 0; i < 40; i++) {
      // Readable by everyone, by u1, by the role mods, or (no ACL) by everyone.
      const acl = [ACL_BY['*'], ACL_BY['u1'], ACL_BY['role:mods'], null][i % 4];
      await pg.insert(ref, acl ? { ...shapeRecord(i), ACL: acl } : shapeRecord(i));
    }
  });
  afterAll(async () => {
    await pg?.close();
    await db?.drop();
  });

  it('reuses a shape with new values, limits and skips, and returns the right rows', async () => {
    await expectShapesAnswerRight(pg, schema0);
    const other = plan(schema0, w({ owner: { __type: 'Pointer', className: 'Other', objectId: 'u1' } }));
    expect(await pg.count(ref, withAclFilter(other.where, principalsOf('u1')))).toBe(0);
  });

  it('reuses an ACL-filtered shape for callers with other principals', async () => {
    const callers = [
      { principals: principalsOf(null), readable: (i: number) => i % 4 === 0 || i % 4 === 3 },
      { principals: principalsOf('u1'), readable: (i: number) => i % 4 !== 2 },
      { principals: principalsOf('u2', ['mods']), readable: (i: number) => i % 4 !== 1 },
      { principals: principalsOf('u9'), readable: (i: number) => i % 4 === 0 || i % 4 === 3 },
      { principals: principalsOf('u1', ['mods']), readable: () => true },
    ];
    for (let round = 0; round < 2; round++) {
      for (const { principals, readable } of callers) {
        const base = plan(schema0, `${w({ score: { $gte: 10 } })}&order=score&limit=5&skip=1`);
        const rows = await pg.find(ref, { ...base, where: withAclFilter(base.where, principals) });
        const expected = Array.from({ length: 40 }, (_, i) => i).filter((i) => i >= 10 && readable(i));
        expect(rows.map((r) => r.score)).toEqual(expected.slice(1, 6));
        expect(await pg.count(ref, withAclFilter(base.where, principals))).toBe(expected.length);
      }
    }
  });

  it('starts afresh after a schema change', async () => {
    expect(await pg.count(ref, plan(schema0, w({ extra: 'a' })).where)).toBe(0);
    const schema1 = await pg.ensureColumns(ref, { extra: { type: 'String' } });
    await pg.update(ref, 'id000', [{ kind: 'set', column: 'extra', path: [], value: 'a' }], dateValue(9_000_000));
    expect(await pg.count(ref, plan(schema1, w({ extra: 'a' })).where)).toBe(1);
    const rows = await pg.find(ref, plan(schema1, `${w({ extra: 'a' })}&limit=2`));
    expect(rows.map((r) => r.objectId)).toEqual(['id000']);
  });

  it('reads the parameters off the plan exactly as the postgres compiler binds them', async () => {
    const schema = (await pg.getSchema(ref))!;
    const view = { namespace: 'app', schema: () => schema };
    const queries = [
      w({ name: 'n1' }),
      `${w({ score: { $gt: 3, $lte: 9 }, active: false })}&order=-score,name&limit=7&skip=2`,
      `${w({ score: { $gt: 3 } })}&order=score&limit=20`,
      w({ $or: [{ name: { $in: ['a', 'b', null] } }, { when: { $lt: { __type: 'Date', iso: '2020-01-01T00:00:00.000Z' } } }] }),
      w({ owner: { __type: 'Pointer', className: '_User', objectId: 'u1' }, name: { $ne: 'x' } }),
      w({ owner: { __type: 'Pointer', className: 'Other', objectId: 'u1' } }),
      w({ score: { $exists: true }, missing: { $exists: false } }),
      w({ createdAt: { $gte: { __type: 'Date', iso: '1970-01-01T00:16:40.000Z' } }, objectId: { $in: ['id001', 'id002'] } }),
      w({ score: { $nin: [1, 2] }, name: { $ne: 'x' } }),
    ];
    for (const q of queries) {
      const p = plan(schema0, q);
      // A where that folds to FALSE drops the ACL filter's parameters: the cache checks the first
      // compilation and never reuses such a shape (the adapter test above answers it correctly).
      const folds = q.includes('Other');
      const wheres = folds ? [p.where] : [p.where, withAclFilter(p.where, principalsOf('u1', ['mods'])), withAclFilter(p.where, principalsOf(null))];
      for (const where of wheres) {
        const shape = findShape(schema, { ...p, where }, PG_SHAPES);
        expect(shape, q).not.toBeNull();
        expect(shape!.parameters, q).toEqual(compileFind('Game', { ...p, where }, view, postgresDialect).parameters);
        expect(countShape(schema, where, PG_SHAPES)!.parameters, q).toEqual(compileCount('Game', where, view, postgresDialect).parameters);
      }
    }
    // JSON columns are not cached (compiled every time).
    expect(findShape(schema, plan(schema0, w({ tags: 't1' })), PG_SHAPES)).toBeNull();
    // A regex is rewritten to an ARE: its parameters differ, so the cache never reuses its shape.
    const regex = plan(schema0, w({ name: { $regex: '^n' } }));
    expect(findShape(schema, regex, PG_SHAPES)!.parameters).not.toEqual(compileFind('Game', regex, view, postgresDialect).parameters);
    for (let i = 0; i < 2; i++) expect((await pg.find(ref, plan(schema0, w({ name: { $regex: `^n${i}` } })))).length).toBe(8);
  });
});
