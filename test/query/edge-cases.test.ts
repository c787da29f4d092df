import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { StoredRecord } from '../../src/core/values.js';
import { compareStrings } from '../../src/query/compare.js';
import { applyProjection, runAggregate, sortAndPage } from '../../src/query/evaluate/index.js';
import { parseListQuery } from '../../src/query/parse.js';
import type { TableSchema } from '../../src/query/plan.js';
import { caseSearchParams, type CaseParams } from '../../src/query/conformance/cases.js';
import { Fixture, rec } from './helpers/fixture.js';
import { SETTINGS } from './helpers/context.js';

const geo = (latitude: number, longitude: number) => ({ __type: 'GeoPoint', latitude, longitude }) as const;
const SCHEMA: TableSchema = {
  className: 'E',
  columns: { s: { type: 'String' }, o: { type: 'Object' }, a: { type: 'Array' }, f: { type: 'File' }, g: { type: 'GeoPoint' }, n: { type: 'Number' } },
  indexes: [],
};
const fixture = new Fixture([
  {
    schema: SCHEMA,
    records: [
      rec('e1', 1, { s: '\uFFFD', o: { a: 1, b: 2 }, a: [{ b: 2, a: 1 }], f: { __type: 'File', filename: 'one.txt', url: 'u1' }, g: geo(0, 179.95), n: 1 }),
      rec('e2', 2, { s: '𝄞', o: { b: 2, a: 1 }, a: [[1, 2]], f: { __type: 'File', filename: 'other-name.txt', url: 'u1' }, g: geo(0, -179.95), n: 2 }),
      rec('e3', 3, { s: 'z', o: { a: { __type: 'Date', iso: '2020-01-01T00:00:00.000Z' } }, g: geo(89.99, 10), n: 3 }),
      rec('e4', 4, { g: geo(89.99, -170), a: [geo(1, 1)] }),
      rec('e5', 5, { g: geo(10, 10), o: {} }),
    ],
  },
]);
afterAll(() => fixture.close());

function ids(params: CaseParams): { memory: string[]; sqlite: string[] } {
  const q = parseListQuery(caseSearchParams(params), { className: 'E', schema: (c) => fixture.schema(c), settings: SETTINGS });
  if (q.kind !== 'find') throw new Error(q.kind);
  return { memory: fixture.memoryFind('E', q.plan).map((r) => r.objectId), sqlite: fixture.sqlFind('E', q.plan).map((r) => r.objectId) };
}

const CASES: Array<[string, CaseParams, string[]]> = [
  ['objects are equal whatever their key order', { where: { o: { b: 2, a: 1 } } }, ['e1', 'e2']],
  ['an object element of an array', { where: { a: { a: 1, b: 2 } } }, ['e1']],
  ['an array element of an array', { where: { a: [1, 2] } }, ['e2']],
  ['a GeoPoint element of an array', { where: { a: geo(1, 1) } }, ['e4']],
  ['an empty object equals {}', { where: { o: {} } }, ['e5']],
  ['a Date inside an Object column', { where: { 'o.a': { $gte: { __type: 'Date', iso: '2019-01-01 00:00:00' } } } }, ['e3']],
  ['a sub-key of a Date is its stored text', { where: { 'o.a.iso': '2020-01-01T00:00:00.000Z' } }, ['e3']],
  ['Files are equal by url', { where: { f: { __type: 'File', filename: 'x', url: 'u1' } } }, ['e1', 'e2']],
  ['GeoPoint equality', { where: { g: geo(10, 10) } }, ['e5']],
  ['$nearSphere across the antimeridian', { where: { g: { $nearSphere: geo(0, 179.99), $maxDistanceInKilometers: 50 } } }, ['e1', 'e2']],
  ['$nearSphere over the pole', { where: { g: { $nearSphere: geo(90, 0), $maxDistanceInKilometers: 5 } } }, ['e3', 'e4']],
  ['$within includes its edges', { where: { g: { $within: { $box: [geo(0, 10), geo(10, 179.95)] } } } }, ['e1', 'e5']],
  ['code point order: z, U+FFFD, then an astral character', { where: { s: { $exists: true } }, order: 's' }, ['e3', 'e1', 'e2']],
  ['$lt on strings in code point order', { where: { s: { $lt: '𝄞' } } }, ['e1', 'e3']],
  ['a column named like a prototype member is missing', { where: { constructor: null, toString: { $exists: false } } }, ['e1', 'e2', 'e3', 'e4', 'e5']],
  ['a prototype-named sub-key is missing', { where: { 'o.valueOf': { $exists: true } } }, []],
];

describe('edge cases on both engines', () => {
  it.each(CASES)('%s', (_name, params, expected) => {
    expect(ids(params)).toEqual({ memory: expected, sqlite: expected });
  });
});

describe('sorting', () => {
  it('compareStrings orders by code point (UTF-8 byte order)', () => {
    const words = ['a', 'B', '\uFFFD', '𝄞', 'é', '', 'ab', '\uE000', '😀'];
    const byBytes = [...words].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
    expect([...words].sort(compareStrings)).toEqual(byBytes);
  });

  it('the bounded heap and the full sort give the same pages', () => {
    fc.assert(
      fc.property(fc.array(fc.option(fc.integer({ min: 0, max: 5 }), { nil: null }), { maxLength: 200 }), fc.nat(20), fc.nat(20), fc.boolean(), (keys, skip, limit, desc) => {
        const records = keys.map((k, i) => ({ ...rec(`r${i}`, 0), k }) as StoredRecord);
        const spec = { keys: [(r: StoredRecord) => (r.k as number | null) ?? null], descending: [desc] };
        const expected = [...records]
          .sort((a, b) => {
            const ka = a.k as number | null, kb = b.k as number | null;
            const c = ka === kb ? 0 : ka === null ? -1 : kb === null ? 1 : ka - kb;
            return (desc ? -c : c) || compareStrings(a.objectId, b.objectId);
          })
          .slice(skip, skip + limit);
        expect(sortAndPage(records, spec, skip, limit)).toEqual(expected);
      }),
      { seed: 3, numRuns: 300 },
    );
  });
});

describe('projection and statistics details', () => {
  it('applyProjection keeps system fields, returns the record itself for all', () => {
    const r = rec('x', 0, { a: 1, b: 2 });
    expect(applyProjection(r, { kind: 'all' })).toBe(r);
    expect(applyProjection(r, { kind: 'include', columns: ['a', 'zz'] })).toEqual({ objectId: 'x', createdAt: r.createdAt, updatedAt: r.updatedAt, a: 1 });
    expect(applyProjection(r, { kind: 'exclude', columns: ['a'] })).toEqual({ objectId: 'x', createdAt: r.createdAt, updatedAt: r.updatedAt, b: 2 });
  });

  it('statistics without groupby give one row even over no records', () => {
    const q = parseListQuery(caseSearchParams({ where: { n: 99 }, sum: 'n', average: 'n', max: 'n', groupcount: true }), { className: 'E', schema: (c) => fixture.schema(c), settings: SETTINGS });
    if (q.kind !== 'aggregate') throw new Error(q.kind);
    const expected = [{ _sumN: 0, _avgN: null, _maxN: null, _count: 0 }];
    expect(runAggregate([], q.plan, fixture.env('E'))).toEqual(expected);
    expect(fixture.sqlAggregate('E', q.plan)).toEqual(expected);
  });
});
