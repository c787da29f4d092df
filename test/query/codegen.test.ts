import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { StoredRecord } from '../../src/core/values.js';
import { contextFor } from '../../src/query/evaluate/context.js';
import { generatePredicate } from '../../src/query/evaluate/codegen.js';
import { compileClosurePredicate } from '../../src/query/evaluate/where.js';
import { parseListQuery } from '../../src/query/parse.js';
import type { WhereNode } from '../../src/query/plan.js';
import { SETTINGS } from './helpers/context.js';
import { dataSets, findParams } from './helpers/arbitraries.js';
import { Fixture } from './helpers/fixture.js';

/**
 * The generated predicates (codegen.ts) against the closure compilers they stand in for: the same
 * records match for random data and random where trees. Fixed seed; FC_RUNS raises the count.
 */
const RUNS = Number(process.env.FC_RUNS ?? 300);
const SEED = Number(process.env.FC_SEED ?? 20261123);

describe('generated predicates agree with the closure compilers', () => {
  it(`on ${RUNS} random data sets × 4 random where trees`, () => {
    let generated = 0;
    fc.assert(
      fc.property(dataSets, fc.array(findParams, { minLength: 4, maxLength: 4 }), (tables, finds) => {
        const fixture = new Fixture(tables);
        try {
          const ctx = { className: 'T', schema: (c: string) => fixture.schema(c), settings: SETTINGS };
          const records = tables.find((t) => t.schema.className === 'T')!.records;
          const evalCtx = contextFor(fixture.env('T'), 'T');
          for (const params of finds) {
            const q = parseListQuery(new URLSearchParams(params), ctx);
            if (q.kind !== 'find') throw new Error('expected a find');
            const fast = generatePredicate(q.plan.where, evalCtx, compileClosurePredicate);
            expect(fast).not.toBeNull();
            const reference = compileClosurePredicate(q.plan.where, evalCtx);
            expect(records.filter(fast!).map((r) => r.objectId)).toEqual(records.filter(reference).map((r) => r.objectId));
            generated++;
          }
        } finally {
          fixture.close();
        }
      }),
      { seed: SEED, numRuns: RUNS },
    );
    expect(generated).toBe(RUNS * 4);
  });

  it('keeps hostile column names and path segments as data, never code', () => {
    const names = ['"); throw new Error("x', "'", '\\', '\u2028', '`${1}`', '*/', '__proto__', 'constructor', 'a b'];
    const at = { __type: 'Date', iso: '2024-01-01T00:00:00.000Z' } as const;
    for (const name of names) {
      const record = JSON.parse(JSON.stringify({ objectId: 'a', createdAt: at, updatedAt: at, [name]: 'v', o: { [name]: 'w' } })) as StoredRecord;
      const other = { objectId: 'b', createdAt: at, updatedAt: at } as StoredRecord;
      const nodes: WhereNode[] = [
        { kind: 'compare', field: { column: name, path: [] }, op: 'eq', value: 'v' },
        { kind: 'compare', field: { column: 'o', path: [name] }, op: 'eq', value: 'w' },
        { kind: 'exists', field: { column: 'o', path: [name] }, exists: true },
      ];
      const env = { className: 'T', records: () => [], relationMembers: () => new Set<string>(), schema: () => null };
      for (const node of nodes) {
        const ctx = contextFor(env, 'T');
        const fast = generatePredicate({ kind: 'and', nodes: [node, { kind: 'all_records' }] }, ctx, compileClosurePredicate)!;
        const reference = compileClosurePredicate(node, ctx);
        expect([fast(record), fast(other)]).toEqual([reference(record), reference(other)]);
      }
    }
  });
});
