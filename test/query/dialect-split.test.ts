import { afterAll, describe, expect, it } from 'vitest';
import { caseSearchParams } from '../../src/query/conformance/cases.js';
import { parseListQuery } from '../../src/query/parse.js';
import { compileAggregate, compileCount, compileFind, postgresDialect, sqliteAdapterDialect, type SqlDialect, type SqlQueryDialect } from '../../src/query/sql/index.js';
import { conformanceFixture, parseContext } from './helpers/context.js';

/**
 * The query compilers see only the query part of a dialect (SqlQueryDialect): a dialect stripped of
 * its DDL/locking hooks compiles every find, count and aggregate to the same SQL as the whole one.
 */
const fixture = conformanceFixture();
afterAll(() => fixture.close());

/** The dialect without any member of SqlSchemaDialect (a compiler reading one would fail or differ). */
function queryPart(dialect: SqlDialect): SqlQueryDialect {
  const { columnType, addColumn, dropColumn, indexTerm, keyOnlyTable, insertIgnore, lockRow, insertionOrder, ...query } = dialect;
  void [columnType, addColumn, dropColumn, indexTerm, keyOnlyTable, insertIgnore, lockRow, insertionOrder];
  return query;
}

function parse(params: Parameters<typeof caseSearchParams>[0]) {
  return parseListQuery(caseSearchParams(params), parseContext(fixture, 'Player'));
}

describe('SqlDialect split', () => {
  for (const dialect of [sqliteAdapterDialect, postgresDialect]) {
    it(`${dialect.name}: finds, counts and aggregates compile from the query part alone`, () => {
      const query = queryPart(dialect);
      expect(Object.keys(query)).not.toContain('lockRow');
      const find = parse({ where: { score: { $gte: 3 }, tags: { $all: ['a'] }, name: { $regex: '^b' } }, order: '-score,name', limit: 20 });
      if (find.kind !== 'find') throw new Error(find.kind);
      expect(compileFind('Player', find.plan, fixture.view(), query)).toEqual(compileFind('Player', find.plan, fixture.view(), dialect));
      expect(compileCount('Player', find.plan.where, fixture.view(), query)).toEqual(compileCount('Player', find.plan.where, fixture.view(), dialect));
      const aggregate = parse({ groupby: 'team', groupcount: true, where: { team: { $exists: true } } });
      if (aggregate.kind !== 'aggregate') throw new Error(aggregate.kind);
      expect(compileAggregate('Player', aggregate.plan, fixture.view(), query).query).toEqual(compileAggregate('Player', aggregate.plan, fixture.view(), dialect).query);
    });
  }
});
