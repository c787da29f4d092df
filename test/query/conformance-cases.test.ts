import { afterAll, describe, expect, it } from 'vitest';
import { caseSearchParams, queryConformanceCases } from '../../src/storage/conformance/query/index.js';
import { parseListQuery } from '../../src/query/parse.js';
import { conformanceFixture, parseContext } from './helpers/context.js';

/** The published conformance cases hold for the reference evaluator and for the SQLite compiler. */
describe('query conformance cases on the memory evaluator and SQLite', () => {
  const fixture = conformanceFixture();
  afterAll(() => fixture.close());
  for (const engine of ['memory', 'sqlite'] as const) {
    describe(engine, () => {
      for (const c of queryConformanceCases) {
        it(c.name, () => {
          const query = parseListQuery(caseSearchParams(c.params), parseContext(fixture, c.className));
          if (query.kind === 'aggregate') {
            const rows = engine === 'memory' ? fixture.memoryAggregate(c.className, query.plan) : fixture.sqlAggregate(c.className, query.plan);
            expect(rows).toEqual(c.rows);
            return;
          }
          const where = query.kind === 'count' ? query.where : query.plan.where;
          if (c.count !== undefined) {
            expect(engine === 'memory' ? fixture.memoryCount(c.className, where) : fixture.sqlCount(c.className, where)).toBe(c.count);
          }
          if (query.kind === 'find') {
            const records = engine === 'memory' ? fixture.memoryFind(c.className, query.plan) : fixture.sqlFind(c.className, query.plan);
            expect(records.map((r) => r.objectId)).toEqual(c.ids);
            if (c.fields) expect(Object.keys(records[0]!).sort()).toEqual(c.fields);
          }
        });
      }
    });
  }
});
