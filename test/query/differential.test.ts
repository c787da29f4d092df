import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseListQuery } from '../../src/query/parse.js';
import { SETTINGS } from './helpers/context.js';
import { dataSets, findParams, statsParams, timeZones } from './helpers/arbitraries.js';
import { Fixture } from './helpers/fixture.js';

/**
 * The memory evaluator is the reference; the SQLite compiler must return identical rows in
 * identical order for random data and random queries. Fixed seed; FC_RUNS raises the run count
 * (each run checks 5 queries: 3 finds, 1 count, 1 statistics query).
 */
const RUNS = Number(process.env.FC_RUNS ?? 250);
const SEED = Number(process.env.FC_SEED ?? 20240601);
let checked = 0;

describe('differential: memory evaluator vs SQLite', () => {
  it(`agrees on ${RUNS} random data sets × 5 random queries`, () => {
    fc.assert(
      fc.property(
        dataSets,
        fc.array(findParams, { minLength: 3, maxLength: 3 }),
        findParams,
        statsParams,
        timeZones,
        (tables, finds, countQuery, stats, timeZone) => {
          const fixture = new Fixture(tables);
          try {
            const ctx = { className: 'T', schema: (c: string) => fixture.schema(c), settings: { ...SETTINGS, timeZone } };
            for (const params of finds) {
              const q = parseListQuery(new URLSearchParams(params), ctx);
              if (q.kind !== 'find') throw new Error('expected a find');
              expect(fixture.sqlFind('T', q.plan)).toEqual(fixture.memoryFind('T', q.plan));
              checked++;
            }
            const c = parseListQuery(new URLSearchParams({ ...countQuery, count: '1', limit: '0' }), ctx);
            if (c.kind !== 'count') throw new Error('expected a count');
            expect(fixture.sqlCount('T', c.where)).toBe(fixture.memoryCount('T', c.where));
            checked++;
            const a = parseListQuery(new URLSearchParams(stats), ctx);
            if (a.kind !== 'aggregate') throw new Error('expected statistics');
            expect(fixture.sqlAggregate('T', a.plan)).toEqual(fixture.memoryAggregate('T', a.plan));
            checked++;
          } finally {
            fixture.close();
          }
        },
      ),
      { seed: SEED, numRuns: RUNS },
    );
    expect(checked).toBeGreaterThanOrEqual(RUNS * 5);
  });
});
