import { describe, expect, it } from 'vitest';
import { isSvcError, type SvcError } from '../../src/core/errors.js';
import type { ErrorName } from '../../src/core/error-codes.js';
import { parseListQuery, referencedClasses, type ListQuery, type QuerySettings } from '../../src/query/parse.js';
import { caseSearchParams, type CaseParams } from '../../src/query/conformance/cases.js';
import { conformanceFixture, parseContext, SETTINGS } from './helpers/context.js';

const fixture = conformanceFixture();

function parse(params: CaseParams | URLSearchParams, settings: QuerySettings = SETTINGS, className = 'Player'): ListQuery {
  const search = params instanceof URLSearchParams ? params : caseSearchParams(params);
  return parseListQuery(search, parseContext(fixture, className, settings));
}

function parseError(params: CaseParams | URLSearchParams, settings?: QuerySettings, className = 'Player'): SvcError {
  try {
    parse(params, settings, className);
  } catch (err) {
    if (isSvcError(err)) return err;
    throw err;
  }
  throw new Error(`no error for ${JSON.stringify(params)}`);
}

const geo = (latitude: number, longitude: number) => ({ __type: 'GeoPoint', latitude, longitude });

/** [description, params, error name, text the message must contain, table (default Player)] */
const ERRORS: Array<[string, CaseParams | URLSearchParams, ErrorName, string, string?]> = [
  ['unknown operator', { where: { score: { $foo: 1 } } }, 'invalidQueryKey', "'$foo'"],
  ['unknown operator names the key', { where: { score: { $foo: 1 } } }, 'invalidQueryKey', "'score'"],
  ['unknown top-level operator', { where: { $nor: [] } }, 'invalidQueryKey', '$nor'],
  ['invalid key', { where: { 'bl!ng': 1 } }, 'invalidQueryKey', "'bl!ng'"],
  ['__proto__ as a key', new URLSearchParams({ where: '{"__proto__":{"x":1}}' }), 'invalidQueryKey', '__proto__'],
  ['forbidden sub-key', { where: { 'profile.constructor': 1 } }, 'invalidQueryKey', 'profile.constructor'],
  ['sub-key of a non-Object column', { where: { 'score.x': 1 } }, 'invalidQueryKey', "'score.x'"],
  ['operators mixed with fields', { where: { score: { $gt: 1, x: 2 } } }, 'invalidQueryKey', "'x'"],
  ['$in needs an array', { where: { score: { $in: 5 } } }, 'invalidQueryKey', '$in needs an array'],
  ['$nin needs an array', { where: { score: { $nin: 'a' } } }, 'invalidQueryKey', '$nin'],
  ['$all needs an array', { where: { tags: { $all: 'a' } } }, 'invalidQueryKey', '$all'],
  ['too many $in values', { where: { score: { $in: Array.from({ length: 1001 }, (_, i) => i) } } }, 'invalidQueryKey', '1000'],
  ['$exists needs a boolean', { where: { score: { $exists: 'yes' } } }, 'invalidQueryKey', '$exists'],
  ['$gt with a boolean', { where: { score: { $gt: true } } }, 'invalidQueryKey', "'score': $gt"],
  ['$lt with null', { where: { score: { $lt: null } } }, 'invalidQueryKey', '$lt'],
  ['$gte with a Pointer', { where: { score: { $gte: { __type: 'Pointer', className: 'Team', objectId: 'T1' } } } }, 'invalidQueryKey', '$gte'],
  ['$regex needs a string', { where: { name: { $regex: 5 } } }, 'invalidQueryKey', '$regex needs a string'],
  ['$regex with an unknown option', { where: { name: { $regex: 'a', $options: 'x' } } }, 'invalidQueryKey', '$options'],
  ['$options alone', { where: { name: { $options: 'i' } } }, 'invalidQueryKey', '$options needs $regex'],
  ['$regex with a backreference', { where: { name: { $regex: '(a)\\1' } } }, 'regexUnsafe', 'backreferences'],
  ['$regex too long', { where: { name: { $regex: 'a'.repeat(600) } } }, 'regexUnsafe', '512'],
  ['$regex syntax error', { where: { name: { $regex: '(' } } }, 'invalidQueryKey', 'invalid $regex'],
  ['a distance without $nearSphere', { where: { location: { $maxDistanceInKilometers: 3 } } }, 'invalidQueryKey', 'needs $nearSphere'],
  ['two distances', { where: { location: { $nearSphere: geo(1, 1), $maxDistanceInMiles: 1, $maxDistanceInKilometers: 1 } } }, 'invalidQueryKey', 'only one'],
  ['a negative distance', { where: { location: { $nearSphere: geo(1, 1), $maxDistanceInKilometers: -1 } } }, 'invalidQueryKey', 'non-negative'],
  ['$nearSphere on a String column', { where: { name: { $nearSphere: geo(1, 1) } } }, 'invalidQueryKey', 'GeoPoint column'],
  ['$nearSphere without a GeoPoint', { where: { location: { $nearSphere: { latitude: 1 } } } }, 'invalidQueryKey', 'invalid geopoint'],
  ['latitude out of range', { where: { location: { $nearSphere: geo(91, 0) } } }, 'geoOutOfRange', 'Latitude'],
  ['longitude out of range', { where: { location: { $within: { $box: [geo(0, 0), geo(1, 181)] } } } }, 'geoOutOfRange', 'Longitude'],
  ['malformed $within', { where: { location: { $within: { $box: [geo(0, 0)] } } } }, 'invalidQueryKey', '$box'],
  ['$inQuery with a bad className', { where: { team: { $inQuery: { className: 'a b', where: {} } } } }, 'invalidQueryKey', 'className'],
  ['$inQuery with an unknown key', { where: { team: { $inQuery: { className: 'Team', where: {}, order: 'x' } } } }, 'invalidQueryKey', "'order'"],
  ['$inQuery on a String column', { where: { name: { $inQuery: { className: 'Team', where: {} } } } }, 'invalidQueryKey', 'Pointer, Relation or Array'],
  ['$inQuery with a negative limit', { where: { team: { $inQuery: { className: 'Team', where: {}, limit: -1 } } } }, 'invalidQueryKey', 'limit'],
  ['$select without a key', { where: { hometown: { $select: { query: { className: 'Team', where: {} } } } } }, 'invalidQueryKey', '$select'],
  ['$select key of a Relation', { where: { hometown: { $select: { query: { className: 'Team', where: {} }, key: 'members' } } } }, 'invalidQueryKey', "key 'members'"],
  ['$select on a dotted key', { where: { 'profile.city': { $select: { query: { className: 'Team', where: {} }, key: 'city' } } } }, 'invalidQueryKey', 'top-level'],
  ['$select with a Date key on an Array', { where: { tags: { $select: { query: { className: 'Team', where: {} }, key: 'createdAt' } } } }, 'invalidQueryKey', 'Date key'],
  ['$relatedTo without a Pointer', { where: { $relatedTo: { object: { className: 'Team', objectId: 'T1' }, key: 'members' } } }, 'invalidQueryKey', 'Pointer'],
  ['$relatedTo on a non-Relation key', { where: { $relatedTo: { object: { __type: 'Pointer', className: 'Team', objectId: 'T1' }, key: 'name' } } }, 'invalidQueryKey', 'not a Relation'],
  ['Relation column with $gt', { where: { members: { $gt: 1 } } }, 'invalidQueryKey', 'Relation', 'Team'],
  ['Relation column with a string', { where: { members: 'x' } }, 'invalidQueryKey', 'Relation', 'Team'],
  ['Relation column with $exists', { where: { members: { $exists: true } } }, 'invalidQueryKey', 'Relation', 'Team'],
  ['empty $or', { where: { $or: [] } }, 'invalidQueryKey', '$or'],
  ['$and not an array', { where: { $and: { a: 1 } } }, 'invalidQueryKey', '$and'],
  ['where nested too deep', { where: JSON.parse('{"$or":[' .repeat(9) + '{"a":1}' + ']}'.repeat(9)) as object }, 'invalidQueryKey', 'nested deeper'],
  ['where JSON nested too deep', new URLSearchParams({ where: `{"a":${'['.repeat(40)}${']'.repeat(40)}}` }), 'invalidQueryKey', 'nested deeper'],
  ['where is not JSON', new URLSearchParams({ where: '{"a":' }), 'invalidJson', 'where'],
  ['where is an array', new URLSearchParams({ where: '[1]' }), 'invalidQueryKey', 'JSON object'],
  ['where too large', new URLSearchParams({ where: JSON.stringify({ name: 'x'.repeat(70_000) }) }), 'whereTooLarge', '65536'],
  ['an invalid createdAt string', { where: { createdAt: { $gt: 'yesterday' } } }, 'invalidDate', 'yesterday'],
  ['an invalid Date', { where: { born: { __type: 'Date', iso: 'soon' } } }, 'invalidDate', 'soon'],
  ['an operation as operand', { where: { score: { __op: 'Increment' } } }, 'invalidOp', 'score'],
  ['order on an Array column', { order: 'tags' }, 'notSortable', 'tags'],
  ['order on a Boolean column', { order: '-active' }, 'notSortable', 'active'],
  ['order on a dotted key', { order: 'profile.city' }, 'notSortable', 'profile.city'],
  ['order on an invalid name', { order: 'a;drop' }, 'invalidQueryKey', 'a;drop'],
  ['limit not a number', { limit: 'ten' }, 'invalidQueryKey', 'limit'],
  ['negative limit', { limit: -1 }, 'invalidQueryKey', 'limit'],
  ['skip not a number', { skip: '1e3' }, 'invalidQueryKey', 'skip'],
  ['skip too large', { skip: 10_000_001 }, 'invalidQueryKey', 'skip'],
  ['keys mixing inclusion and exclusion', { keys: 'name,-score' }, 'invalidQueryKey', 'keys'],
  ['invalid key in keys', { keys: "name,x'y" }, 'invalidQueryKey', "x'y"],
  ['count not a flag', { count: 'maybe' }, 'invalidQueryKey', 'count'],
  ['invalid include', { include: 'team;x' }, 'invalidQueryKey', 'include'],
  ['include too deep', { include: 'a.b.c.d.e' }, 'invalidQueryKey', 'include'],
  ['sum of a String column', { sum: 'name' }, 'invalidQueryKey', "'name' is a String column"],
  ['sum of an unknown column', { sum: 'nope' }, 'invalidQueryKey', "'nope'"],
  ['groupby an Array column', { groupby: 'tags' }, 'invalidQueryKey', 'groupby'],
  ['groupcount not a flag', { groupby: 'name', groupcount: 'yes' }, 'invalidQueryKey', 'groupcount'],
  ['having over a non-result column', { groupby: 'name', having: { score: { $gt: 1 } } }, 'invalidQueryKey', "'score'"],
  ['having with a subquery operator', { groupby: 'name', groupcount: true, having: { _count: { $inQuery: {} } } }, 'invalidQueryKey', 'having'],
  ['statistics order over a non-result column', { sum: 'score', order: 'name' }, 'invalidQueryKey', "'name'"],
  ['the same aggregate twice', { sum: 'score,score' }, 'invalidQueryKey', '_sumScore'],
];

describe('parse errors', () => {
  it.each(ERRORS)('%s', (_name, params, errorName, text, className) => {
    const err = parseError(params, undefined, className);
    expect(err.errorName).toBe(errorName);
    expect(err.message).toContain(text);
  });

  it('$regex needs the plan feature', () => {
    const settings = { ...SETTINGS, features: { regex: false } };
    const err = parseError({ where: { name: { $regex: 'a' } } }, settings);
    expect([err.errorName, err.code]).toEqual(['regexNotInPlan', 11020]);
  });

  it('invalidQueryKey is code 102', () => {
    expect(parseError({ where: { score: { $foo: 1 } } }).code).toBe(102);
  });
});

describe('plans', () => {
  const find = (params: CaseParams, settings?: QuerySettings) => {
    const q = parse(params, settings);
    if (q.kind !== 'find') throw new Error(q.kind);
    return q;
  };

  it('applies the default limit, clamps to the maximum, skips 0', () => {
    expect(find({}).plan).toMatchObject({ limit: 100, skip: 0, order: [], projection: { kind: 'all' } });
    expect(find({ limit: 5000 }).plan.limit).toBe(1000);
    const small = { ...SETTINGS, query: { ...SETTINGS.query, defaultLimit: 10, maxLimit: 20 } };
    expect(find({}, small).plan.limit).toBe(10);
    expect(find({ limit: 50 }, small).plan.limit).toBe(20);
  });

  it('count=1 with limit=0 is a count, otherwise a find with count', () => {
    expect(parse({ count: 1, limit: 0 }).kind).toBe('count');
    expect(parse({ count: 'true', limit: 0 }).kind).toBe('count');
    expect(find({ count: 1 }).count).toBe(true);
    expect(find({}).count).toBe(false);
  });

  it('freezes the plan tree', () => {
    const q = find({ where: { score: { $gt: 1 }, name: 'a' } });
    expect(Object.isFrozen(q.plan)).toBe(true);
    expect(Object.isFrozen(q.plan.where)).toBe(true);
  });

  it('parses createdAt strings in the application time zone', () => {
    const q = find({ where: { createdAt: { $gte: '2024-01-01 08:00:00' } } }, { ...SETTINGS, timeZone: 'Asia/Shanghai' });
    expect(q.plan.where).toMatchObject({ kind: 'compare', op: 'gte', value: { __type: 'Date', iso: '2024-01-01T00:00:00.000Z' } });
  });

  it('keeps a string compared with another Date column a string (it never matches)', () => {
    expect(find({ where: { born: '2020-01-01' } }).plan.where).toMatchObject({ kind: 'compare', value: '2020-01-01' });
  });

  it('sorts nearest first only for a top-level $nearSphere without order', () => {
    const near = { location: { $nearSphere: geo(1, 2) } };
    expect(find({ where: near }).plan.nearest).toEqual({ field: { column: 'location', path: [] }, point: geo(1, 2) });
    expect(find({ where: { ...near, name: 'x' } }).plan.nearest).toBeDefined();
    expect(find({ where: near, order: 'score' }).plan.nearest).toBeUndefined();
    expect(find({ where: { $or: [near, { name: 'x' }] } }).plan.nearest).toBeUndefined();
  });

  it('converts distances to radians (100 km by default)', () => {
    const radians = (extra: object) => (find({ where: { location: { $nearSphere: geo(0, 0), ...extra } } }).plan.where as { maxRadians: number }).maxRadians;
    expect(radians({})).toBeCloseTo(100 / 6371, 12);
    expect(radians({ $maxDistanceInKilometers: 10 })).toBeCloseTo(10 / 6371, 12);
    expect(radians({ $maxDistanceInMiles: 10 })).toBeCloseTo(10 / 3958.8, 12);
    expect(radians({ $maxDistanceInRadians: 0.5 })).toBe(0.5);
  });

  it('normalises $box corners', () => {
    const where = find({ where: { location: { $within: { $box: [geo(37.71, -122.53), geo(30.82, -122.37)] } } } }).plan.where;
    expect(where).toMatchObject({ southWest: geo(30.82, -122.53), northEast: geo(37.71, -122.37) });
  });

  it('defaults and clamps inner query limits', () => {
    const inner = (limit?: number) =>
      (find({ where: { team: { $inQuery: limit === undefined ? { className: 'Team', where: {} } : { className: 'Team', where: {}, limit } } } }).plan.where as { query: { limit: number } }).query.limit;
    expect(inner()).toBe(100);
    expect(inner(5)).toBe(5);
    expect(inner(5000)).toBe(1000);
  });

  it('drops order terms on unknown columns and reads +/- prefixes', () => {
    expect(find({ order: '-score,nope,+name' }).plan.order.map((t) => [t.field.column, t.descending])).toEqual([
      ['score', true],
      ['name', false],
    ]);
  });

  it('projections: keys, -keys, include roots added to keys', () => {
    expect(find({ keys: 'name,score.x,objectId' }).plan.projection).toEqual({ kind: 'include', columns: ['name', 'score'] });
    expect(find({ keys: '-tags,-profile' }).plan.projection).toEqual({ kind: 'exclude', columns: ['tags', 'profile'] });
    expect(find({ keys: 'name', include: 'team' }).plan.projection).toEqual({ kind: 'include', columns: ['name', 'team'] });
  });

  it('include paths with dots and field subsets', () => {
    expect(find({ include: 'team.owner, team[name|city]' }).include).toEqual([
      [{ column: 'team' }, { column: 'owner' }],
      [{ column: 'team', fields: ['name', 'city'] }],
    ]);
  });

  it('empty $and folds away and single-branch $or is the branch', () => {
    expect(find({ where: { $and: [{}] } }).plan.where).toEqual({ kind: 'all_records' });
    expect(find({ where: { $or: [{ name: 'a' }] } }).plan.where).toMatchObject({ kind: 'compare', op: 'eq', value: 'a' });
  });

  it('treats a plain object operand as equality with that object', () => {
    expect(find({ where: { profile: { city: 'Paris' } } }).plan.where).toMatchObject({ kind: 'compare', op: 'eq', value: { city: 'Paris' } });
  });

  it('allows queries on unknown columns and unknown tables', () => {
    expect(find({ where: { nope: 1 } }).plan.where).toMatchObject({ kind: 'compare' });
    expect(parse({ where: { 'a.b': 1 }, order: '-_sumY', sum: 'y' }, SETTINGS, 'Ghost').kind).toBe('aggregate');
    expect(parse({ where: { 'a.b': 1 }, order: 'x' }, SETTINGS, 'Ghost').kind).toBe('find');
  });
});

describe('statistics plans', () => {
  const stats = (params: CaseParams) => {
    const q = parse(params);
    if (q.kind !== 'aggregate') throw new Error(q.kind);
    return q.plan;
  };

  it('names result columns with the first letter capitalised', () => {
    expect(stats({ sum: 'score', average: 'score', max: 'name', min: 'born' }).aggregates.map((a) => [a.fn, a.alias])).toEqual([
      ['sum', '_sumScore'],
      ['avg', '_avgScore'],
      ['max', '_maxName'],
      ['min', '_minBorn'],
    ]);
  });

  it('reads comma lists with spaces and the SDK array form', () => {
    const params = new URLSearchParams('sum[]=score&max=score, born&groupby=name');
    const q = parse(params);
    if (q.kind !== 'aggregate') throw new Error(q.kind);
    expect(q.plan.aggregates.map((a) => a.alias)).toEqual(['_sumScore', '_maxScore', '_maxBorn']);
  });

  it('groups Date columns by day in the application zone', () => {
    expect(stats({ groupby: 'born,createdAt,name' }).groupBy).toEqual([
      { column: 'born', byDay: true },
      { column: 'createdAt', byDay: true },
      { column: 'name', byDay: false },
    ]);
    expect(stats({ groupby: 'born' }).timeZone).toBe('UTC');
  });

  it('resolves order and having names case-insensitively', () => {
    const plan = stats({ sum: 'score', groupby: 'name', order: '-_sumscore,NAME', having: { _SUMSCORE: { $gt: 1 } } });
    expect(plan.order).toEqual([
      { name: '_sumScore', descending: true },
      { name: 'name', descending: false },
    ]);
    expect(plan.having).toMatchObject({ kind: 'compare', field: { column: '_sumScore' } });
  });

  it('groupcount alone is a statistics query', () => {
    expect(stats({ groupcount: true })).toMatchObject({ groupCount: true, groupBy: [], aggregates: [] });
  });
});

describe('referencedClasses', () => {
  it('lists the classes of inner queries and $relatedTo', () => {
    const where = JSON.stringify({
      a: { $inQuery: { className: 'A', where: { b: { $select: { query: { className: 'B', where: {} }, key: 'x' } } } } },
      $relatedTo: { object: { __type: 'Pointer', className: 'C', objectId: '1' }, key: 'r' },
    });
    expect(referencedClasses(where).sort()).toEqual(['A', 'B', 'C']);
    expect(referencedClasses('{bad json')).toEqual([]);
    expect(referencedClasses(null)).toEqual([]);
  });
});
