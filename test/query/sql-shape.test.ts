import { afterAll, describe, expect, it } from 'vitest';
import { caseSearchParams, type CaseParams } from '../../src/query/conformance/cases.js';
import { parseListQuery } from '../../src/query/parse.js';
import type { TableSchema } from '../../src/query/plan.js';
import { compileAggregate, compileCount, compileFind, postgresDialect, sqliteDialect, type SqlDialect } from '../../src/query/sql/index.js';
import { conformanceFixture, parseContext } from './helpers/context.js';

/**
 * The SQL each dialect compiles for a few queries, stated in full (house style #7), then run on
 * SQLite against the reference evaluator.
 */
const fixture = conformanceFixture();
afterAll(() => fixture.close());

const COLUMNS =
  't0."objectId", t0."createdAt", t0."updatedAt", t0."name", t0."score", t0."tags", t0."profile", t0."born", t0."active", t0."team", t0."location$lat", t0."location$lng", t0."hometown"';

function plan(params: CaseParams) {
  const q = parseListQuery(caseSearchParams(params), parseContext(fixture, 'Player'));
  if (q.kind !== 'find') throw new Error(q.kind);
  return q.plan;
}

function find(params: CaseParams, dialect: SqlDialect) {
  return compileFind('Player', plan(params), fixture.view(), dialect);
}

describe('SQL shapes', () => {
  it('comparisons and order', () => {
    const params = { where: { score: { $gt: 10 }, name: 'x' }, order: '-score' };
    expect(find(params, sqliteDialect)).toEqual({
      sql: `SELECT ${COLUMNS} FROM "app__Player" AS t0 WHERE (t0."score" > ? AND t0."name" = ?) ORDER BY t0."score" DESC, t0."objectId" ASC LIMIT ? OFFSET ?`,
      parameters: [10, 'x', 100, 0],
    });
    expect(find(params, postgresDialect).sql).toBe(
      // A String's equality in code point order and the limit written in: the index serves both (D160, D162).
      `SELECT ${COLUMNS} FROM "app__Player" AS t0 WHERE (t0."score" > $1 AND (t0."name" COLLATE "C") = $2) ORDER BY t0."score" DESC NULLS LAST, (t0."objectId" COLLATE "C") ASC NULLS FIRST LIMIT 100`,
    );
  });

  it('$ne negates NULL-safely, so missing values match', () => {
    expect(find({ where: { score: { $ne: 3 } } }, sqliteDialect).sql).toContain('WHERE NOT COALESCE(t0."score" = ?, 0) ORDER BY');
    expect(find({ where: { score: { $ne: 3 } } }, postgresDialect).sql).toContain('WHERE NOT COALESCE(t0."score" = $1, FALSE) ORDER BY');
  });

  it('a type mismatch folds to false, an unknown column to missing', () => {
    expect(find({ where: { score: 'x' } }, sqliteDialect).sql).toContain('WHERE 0 ORDER BY');
    expect(find({ where: { nope: null } }, sqliteDialect).sql).toContain('WHERE 1 ORDER BY');
    expect(find({ where: { score: { $ne: 'x' } } }, postgresDialect).sql).toContain('WHERE TRUE ORDER BY');
  });

  it('equality on an Array column looks at the elements', () => {
    expect(find({ where: { tags: 'a' } }, sqliteDialect)).toEqual({
      sql: `SELECT ${COLUMNS} FROM "app__Player" AS t0 WHERE ((json_type(t0."tags", ?) = 'array') AND EXISTS (SELECT 1 FROM json_each(t0."tags", ?) AS j1 WHERE ((j1.type = 'text') AND j1.value = ?))) ORDER BY t0."createdAt" ASC, t0."objectId" ASC LIMIT ? OFFSET ?`,
      parameters: ['$', '$', 'a', 100, 0],
    });
  });

  it('D10: a long $in/$all list on a JSON column binds one JSON array per comparison, in both dialects', () => {
    const names = Array.from({ length: 1000 }, (_, i) => `n${i}`);
    const sqlite = find({ where: { tags: { $in: names } } }, sqliteDialect);
    expect(sqlite.sql).toContain('((j1.type = \'text\') AND j1.value IN (SELECT v2.value FROM json_each(?) AS v2))');
    expect(sqlite.parameters).toContain(JSON.stringify(names));
    expect(sqlite.parameters.length).toBeLessThan(10);
    const pg = find({ where: { tags: { $all: names } } }, postgresDialect);
    expect(pg.sql).toContain('NOT EXISTS (SELECT 1 FROM jsonb_array_elements_text($');
    expect(pg.parameters).toContain(JSON.stringify(names));
    expect(pg.parameters.length).toBeLessThan(10);
  });

  it('dotted keys use JSON paths bound as parameters', () => {
    const q = find({ where: { 'profile.city': 'Paris' } }, sqliteDialect);
    expect(q.sql).toContain(`WHERE (((json_type(t0."profile", ?) = 'text') AND json_extract(t0."profile", ?) = ?) OR`);
    expect(q.parameters.slice(0, 3)).toEqual(['$."city"', '$."city"', 'Paris']);
  });

  it('$inQuery is a subquery in default order with the inner limit', () => {
    expect(find({ where: { team: { $inQuery: { className: 'Team', where: { winPct: { $gt: 0.5 } } } } } }, sqliteDialect)).toEqual({
      sql: `SELECT ${COLUMNS} FROM "app__Player" AS t0 WHERE t0."team" IN (SELECT t1."objectId" AS "v" FROM "app__Team" AS t1 WHERE t1."winPct" > ? ORDER BY t1."createdAt" ASC, t1."objectId" ASC LIMIT ?) ORDER BY t0."createdAt" ASC, t0."objectId" ASC LIMIT ? OFFSET ?`,
      parameters: [0.5, 100, 100, 0],
    });
  });

  it('$relatedTo reads the join table', () => {
    const q = compileFind('Player', plan({ where: { $relatedTo: { object: { __type: 'Pointer', className: 'Team', objectId: 'T1' }, key: 'members' } } }), fixture.view(), sqliteDialect);
    expect(q.sql).toContain('WHERE EXISTS (SELECT 1 FROM "app__Team$members" AS r1 WHERE r1."owningId" = ? AND r1."relatedId" = t0."objectId")');
  });

  it('$nearSphere: bounding box, exact distance, nearest first', () => {
    const q = find({ where: { location: { $nearSphere: { __type: 'GeoPoint', latitude: 1, longitude: 2 } } } }, sqliteDialect);
    expect(q.sql).toBe(
      `SELECT ${COLUMNS} FROM "app__Player" AS t0 WHERE (t0."location$lat" IS NOT NULL AND t0."location$lat" BETWEEN ? AND ? AND t0."location$lng" BETWEEN ? AND ? AND svc_geo_distance(t0."location$lat", t0."location$lng", ?, ?) <= ?) ORDER BY svc_geo_distance(t0."location$lat", t0."location$lng", ?, ?) ASC, t0."objectId" ASC LIMIT ? OFFSET ?`,
    );
  });

  it('$regex calls the registered safe matcher', () => {
    expect(find({ where: { name: { $regex: '^a', $options: 'i' } } }, sqliteDialect)).toMatchObject({
      sql: expect.stringContaining('WHERE svc_regex(?, ?, t0."name") ORDER BY'),
      parameters: ['^a', 'i', 100, 0],
    });
  });

  it('count', () => {
    const q = parseListQuery(caseSearchParams({ where: { active: true }, count: 1, limit: 0 }), parseContext(fixture, 'Player'));
    if (q.kind !== 'count') throw new Error(q.kind);
    expect(compileCount('Player', q.where, fixture.view(), sqliteDialect)).toEqual({
      sql: 'SELECT COUNT(*) AS "n" FROM "app__Player" AS t0 WHERE t0."active" = ?',
      parameters: [1],
    });
  });

  it('statistics: grouped inner select, having and order outside', () => {
    const q = parseListQuery(caseSearchParams({ groupby: 'born', sum: 'score', groupcount: true, having: { _sumScore: { $gt: 1 } }, order: '-_sumscore' }), parseContext(fixture, 'Player'));
    if (q.kind !== 'aggregate') throw new Error(q.kind);
    expect(compileAggregate('Player', q.plan, fixture.view(), sqliteDialect).query).toEqual({
      sql: 'SELECT * FROM (SELECT TOTAL(t0."score") AS "_sumScore", COUNT(*) AS "_count", svc_day(t0."born", ?) AS "born" FROM "app__Player" AS t0 WHERE 1 GROUP BY 3) AS g WHERE g."_sumScore" > ? ORDER BY g."_sumScore" DESC, g."born" ASC LIMIT ? OFFSET ?',
      parameters: ['UTC', 1, 100, 0],
    });
    expect(compileAggregate('Player', q.plan, fixture.view(), postgresDialect).query.sql).toBe(
      `SELECT * FROM (SELECT COALESCE(SUM(t0."score"), 0) AS "_sumScore", COUNT(*) AS "_count", to_char(to_timestamp(t0."born" / 1000.0) AT TIME ZONE $1, 'YYYY-MM-DD') AS "born" FROM "app__Player" AS t0 WHERE TRUE GROUP BY 3) AS g WHERE g."_sumScore" > $2 ORDER BY g."_sumScore" DESC NULLS LAST, (g."born" COLLATE "C") ASC NULLS FIRST LIMIT $3 OFFSET $4`,
    );
  });

  it('every stated SQLite query returns what the evaluator returns', () => {
    const cases: CaseParams[] = [
      { where: { score: { $gt: 10 }, name: 'x' }, order: '-score' },
      { where: { score: { $ne: 3 } } },
      { where: { tags: 'a' } },
      { where: { 'profile.city': 'Paris' } },
      { where: { team: { $inQuery: { className: 'Team', where: { winPct: { $gt: 0.5 } } } } } },
      { where: { location: { $nearSphere: { __type: 'GeoPoint', latitude: 48, longitude: 2 } } } },
    ];
    for (const params of cases) {
      expect(fixture.sqlFind('Player', plan(params))).toEqual(fixture.memoryFind('Player', plan(params)));
    }
  });
});

describe('identifiers', () => {
  it('refuses a plan naming an invalid column or table (defence in depth)', () => {
    const bad = { ...plan({}), where: { kind: 'compare', field: { column: 'x"; DROP TABLE t; --', path: [] }, op: 'eq', value: 1 } } as const;
    const view = { namespace: 'app', schema: (): TableSchema => ({ className: 'Player', columns: { 'x"; DROP TABLE t; --': { type: 'Number' } }, indexes: [] }) };
    expect(() => compileFind('Player', bad, view, sqliteDialect)).toThrow(/invalid column name/);
    expect(() => compileFind('Player"', plan({}), fixture.view(), sqliteDialect)).toThrow(/invalid class name/);
  });

  it('quotes identifiers by doubling quotes', () => {
    expect(sqliteDialect.quoteIdent('a"b')).toBe('"a""b"');
    expect(postgresDialect.quoteIdent('a"b')).toBe('"a""b"');
  });
});
