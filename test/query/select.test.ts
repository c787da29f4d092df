/**
 * runFind selects an array's matches with the filter's selector (select.ts, D230) and any other
 * iterable with the filter's test: both must give the same pages, and the generated selector the
 * same positions as the closure compilers' predicate, for random data, where trees, skips and limits.
 * Fixed seed; FC_RUNS raises the count.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { StoredRecord } from '../../src/core/values.js';
import { contextFor } from '../../src/query/evaluate/context.js';
import { runFind } from '../../src/query/evaluate/index.js';
import { filterOf, selectMatches } from '../../src/query/evaluate/select.js';
import { compileClosurePredicate, compileFilter } from '../../src/query/evaluate/where.js';
import { parseListQuery } from '../../src/query/parse.js';
import type { FindPlan, TableSchema, WhereNode } from '../../src/query/plan.js';
import { SETTINGS } from './helpers/context.js';
import { dataSets, findParams } from './helpers/arbitraries.js';
import { Fixture, rec } from './helpers/fixture.js';

const RUNS = Number(process.env.FC_RUNS ?? 200);
const SEED = Number(process.env.FC_SEED ?? 20261128);

function* iterate(records: readonly StoredRecord[]): Generator<StoredRecord> {
  yield* records;
}

/** Positions of the first `limit` records a predicate matches, by a plain loop. */
function positions(records: readonly StoredRecord[], test: (r: StoredRecord) => boolean, limit: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < records.length && out.length < limit; i++) if (test(records[i]!)) out.push(i);
  return out;
}

describe('selecting the matches of an array', () => {
  it(`agrees with the test of each record on ${RUNS} random data sets × 3 random finds`, () => {
    fc.assert(
      fc.property(dataSets, fc.array(findParams, { minLength: 3, maxLength: 3 }), fc.nat(12), fc.nat(12), (tables, finds, skip, limit) => {
        const fixture = new Fixture(tables);
        try {
          const ctx = { className: 'T', schema: (c: string) => fixture.schema(c), settings: SETTINGS };
          const records = tables.find((t) => t.schema.className === 'T')!.records;
          const env = fixture.env('T');
          for (const params of finds) {
            const q = parseListQuery(new URLSearchParams(params), ctx);
            if (q.kind !== 'find') throw new Error('expected a find');
            const reference = compileClosurePredicate(q.plan.where, contextFor(env, 'T'));
            const generated = compileFilter(q.plan.where, contextFor(env, 'T'));
            const closure = filterOf(reference);
            for (const filter of [generated, closure]) {
              const into = new Int32Array(records.length + 1);
              const n = filter.select(records, into, limit + 1);
              expect([...into.subarray(0, n)]).toEqual(positions(records, reference, limit + 1));
              const page = selectMatches(records, filter, skip, skip + limit);
              expect(page).toEqual(records.filter(reference).slice(skip, skip + limit));
            }
            // The array (selector) and an iterable (test) give the same page, in either order hint.
            const plan: FindPlan = { ...q.plan, skip, limit };
            const ids = (rs: StoredRecord[]) => rs.map((r) => r.objectId);
            expect(ids(runFind(records, plan, env))).toEqual(ids(runFind(iterate(records), plan, env)));
            const sorted = [...records].sort((a, b) => (a.createdAt.iso < b.createdAt.iso ? -1 : a.createdAt.iso > b.createdAt.iso ? 1 : a.objectId < b.objectId ? -1 : a.objectId > b.objectId ? 1 : 0));
            const distinct = sorted.every((r, i) => i === 0 || r.createdAt.iso !== sorted[i - 1]!.createdAt.iso || r.objectId !== sorted[i - 1]!.objectId);
            if (distinct && plan.order.length === 0 && !plan.nearest) {
              expect(ids(runFind(sorted, plan, env, { inCreationOrder: true }))).toEqual(ids(runFind(iterate(sorted), plan, env)));
            }
          }
        } finally {
          fixture.close();
        }
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it('gives an inner query evaluated during a selection its own position buffer', () => {
    // The outer selection runs the $inQuery's inner selection lazily, from inside its own loop.
    const schema = (className: string): TableSchema => ({ className, columns: { p: { type: 'Pointer', targetClass: 'U' }, k: { type: 'Number' } }, indexes: [] });
    const users = Array.from({ length: 50 }, (_, i) => rec(`u${String(i).padStart(2, '0')}`, i * 1000, { k: i % 5 }));
    const items = Array.from({ length: 200 }, (_, i) => rec(`t${String(i).padStart(3, '0')}`, i * 1000, { p: { __type: 'Pointer', className: 'U', objectId: `u${String(i % 50).padStart(2, '0')}` } }));
    const tables: Record<string, readonly StoredRecord[]> = { T: items, U: users };
    const env = { className: 'T', records: (c: string) => tables[c] ?? [], relationMembers: () => new Set<string>(), schema: (c: string) => schema(c) };
    const q = parseListQuery(new URLSearchParams({ where: JSON.stringify({ p: { $inQuery: { className: 'U', where: { k: 2 } } } }), limit: '1000' }), {
      className: 'T',
      schema: (c) => schema(c),
      settings: SETTINGS,
    });
    if (q.kind !== 'find') throw new Error('expected a find');
    const expected = items.filter((r, i) => (i % 50) % 5 === 2).map((r) => r.objectId);
    expect(runFind(items, q.plan, env, { inCreationOrder: true }).map((r) => r.objectId)).toEqual(expected);
    expect(runFind(items, q.plan, env).map((r) => r.objectId)).toEqual(expected);
  });

  it('$all of repeated values asks for them once; an array shorter than the distinct values never matches', () => {
    const records = [rec('a', 0, { a: ['x'] }), rec('b', 1000, { a: ['x', 'y'] }), rec('c', 2000, { a: ['y', 'x', 'x'] }), rec('d', 3000, { a: 'x' }), rec('e', 4000, { a: [0] })];
    const env = { className: 'T', records: () => records, relationMembers: () => new Set<string>(), schema: () => null };
    const cases: Array<[readonly (string | number)[], string[]]> = [
      [['x', 'x'], ['a', 'b', 'c']],
      [['x', 'y'], ['b', 'c']],
      [['y', 'x', 'y'], ['b', 'c']],
      [[0, -0], ['e']],
    ];
    for (const [values, ids] of cases) {
      const node: WhereNode = { kind: 'contains_all', field: { column: 'a', path: [] }, values };
      const ctx = contextFor(env, 'T');
      expect(records.filter(compileFilter(node, ctx).test).map((r) => r.objectId), JSON.stringify(values)).toEqual(ids);
      expect(records.filter(compileClosurePredicate(node, ctx)).map((r) => r.objectId), JSON.stringify(values)).toEqual(ids);
    }
  });
});
