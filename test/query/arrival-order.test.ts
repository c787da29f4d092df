/**
 * runFind skips the sort when the matches already arrive in the required order: these cases feed
 * records out of creation order, with ties on createdAt, and check the answer against an explicit
 * sort (and SQLite) for the default order, explicit orders, skip/limit and `$exists`/`$ne`.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { StoredRecord } from '../../src/core/values.js';
import { compareStrings } from '../../src/query/compare.js';
import { parseListQuery } from '../../src/query/parse.js';
import type { TableSchema } from '../../src/query/plan.js';
import { caseSearchParams, type CaseParams } from '../../src/query/conformance/cases.js';
import { Fixture, rec } from './helpers/fixture.js';
import { SETTINGS } from './helpers/context.js';

const SCHEMA: TableSchema = { className: 'T', columns: { n: { type: 'Number' }, s: { type: 'String' } }, indexes: [] };

/** Default order by hand: createdAt (canonical ISO text) ascending, then objectId. */
function byCreation(a: StoredRecord, b: StoredRecord): number {
  return compareStrings(a.createdAt.iso, b.createdAt.iso) || compareStrings(a.objectId, b.objectId);
}

function find(records: readonly StoredRecord[], params: CaseParams): { memory: string[]; sqlite: string[] } {
  const fixture = new Fixture([{ schema: SCHEMA, records }]);
  try {
    const q = parseListQuery(caseSearchParams(params), { className: 'T', schema: (c) => fixture.schema(c), settings: SETTINGS });
    if (q.kind !== 'find') throw new Error(q.kind);
    return { memory: fixture.memoryFind('T', q.plan).map((r) => r.objectId), sqlite: fixture.sqlFind('T', q.plan).map((r) => r.objectId) };
  } finally {
    fixture.close();
  }
}

describe('default order whatever the arrival order', () => {
  it('records inserted out of creation order come back by (createdAt, objectId)', () => {
    const records = [rec('r3', 3000, { n: 1 }), rec('r1', 1000, { n: 2 }), rec('r4', 4000), rec('r2', 2000, { n: 3 }), rec('r0', 0, { n: 3 })];
    expect(find(records, {})).toEqual({ memory: ['r0', 'r1', 'r2', 'r3', 'r4'], sqlite: ['r0', 'r1', 'r2', 'r3', 'r4'] });
    // Only the last match is out of order; and a small page of an unordered input.
    expect(find(records, { where: { n: { $ne: 1 } } }).memory).toEqual(['r0', 'r1', 'r2', 'r4']);
    expect(find(records, { where: { n: { $exists: false } } }).memory).toEqual(['r4']);
    expect(find(records, { limit: 2, skip: 1 }).memory).toEqual(['r1', 'r2']);
  });

  it('ties on createdAt break by objectId, in or out of arrival order', () => {
    const inOrder = [rec('a', 1000), rec('b', 1000), rec('c', 1000), rec('d', 2000)];
    expect(find(inOrder, {}).memory).toEqual(['a', 'b', 'c', 'd']);
    const swapped = [rec('b', 1000), rec('a', 1000), rec('c', 1000), rec('d', 2000)];
    expect(find(swapped, {})).toEqual({ memory: ['a', 'b', 'c', 'd'], sqlite: ['a', 'b', 'c', 'd'] });
    const tieLast = [rec('a', 1000), rec('d', 2000), rec('c', 2000)];
    expect(find(tieLast, {}).memory).toEqual(['a', 'c', 'd']);
    expect(find(tieLast, { skip: 1, limit: 1 }).memory).toEqual(['c']);
  });

  it('ordered inputs are paged by slicing, with the same pages as a sort', () => {
    const records = Array.from({ length: 20 }, (_, i) => rec(`r${String(i).padStart(2, '0')}`, i * 1000, { n: i % 3 }));
    expect(find(records, { skip: 5, limit: 3 }).memory).toEqual(['r05', 'r06', 'r07']);
    expect(find(records, { skip: 19, limit: 5 }).memory).toEqual(['r19']);
    expect(find(records, { skip: 20 }).memory).toEqual([]);
    expect(find(records, { where: { n: 0 }, limit: 2 }).memory).toEqual(['r00', 'r03']);
  });

  it('explicit orders: ordered arrivals are kept, others sorted', () => {
    const records = [rec('x1', 5, { n: 1, s: 'b' }), rec('x2', 4, { n: 2, s: 'a' }), rec('x3', 3, { n: 2, s: 'a' }), rec('x4', 2, { s: 'c' })];
    expect(find(records, { order: 'n' }).memory).toEqual(['x4', 'x1', 'x2', 'x3']);
    expect(find(records, { order: '-createdAt' }).memory).toEqual(['x1', 'x2', 'x3', 'x4']);
    expect(find(records, { order: 's,-n' }).memory).toEqual(['x2', 'x3', 'x1', 'x4']);
    expect(find(records.slice(0, 3), { order: 'n' }).memory).toEqual(['x1', 'x2', 'x3']);
    expect(find([records[2]!, records[1]!], { order: 'n' }).memory).toEqual(['x2', 'x3']);
  });

  it('random arrival orders and ties give the sorted answer (memory and SQLite)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ t: fc.integer({ min: 0, max: 4 }), n: fc.option(fc.integer({ min: 0, max: 2 }), { nil: undefined }) }), { maxLength: 30 }),
        fc.boolean(),
        fc.nat(8),
        fc.integer({ min: 1, max: 40 }),
        fc.constantFrom<'all' | 'ne' | 'missing' | 'present'>('all', 'ne', 'missing', 'present'),
        (rows, presorted, skip, limit, where) => {
          let records = rows.map((row, i) => rec(`id${(i * 7) % 31}-${i}`, row.t * 1000, row.n === undefined ? {} : { n: row.n }));
          if (presorted) records = [...records].sort(byCreation);
          const matches = records.filter((r) => {
            const n = r.n as number | undefined;
            return where === 'all' || (where === 'ne' ? n !== 1 : (where === 'present') === (n !== undefined));
          });
          const WHERE = { all: undefined, ne: { n: { $ne: 1 } }, missing: { n: { $exists: false } }, present: { n: { $exists: true } } };
          const expected = [...matches].sort(byCreation).slice(skip, skip + limit).map((r) => r.objectId);
          const w = WHERE[where];
          const params: CaseParams = { skip, limit, ...(w ? { where: w } : {}) };
          expect(find(records, params)).toEqual({ memory: expected, sqlite: expected });
        },
      ),
      { seed: 7, numRuns: 150 },
    );
  });
});

