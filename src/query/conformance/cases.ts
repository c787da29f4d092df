import type { Value } from '../../core/values.js';

/** Query parameters of a case: `where`/`having` objects are JSON-encoded, the rest sent as text. */
export type CaseParams = Readonly<Record<string, string | number | boolean | object>>;

/**
 * One conformance case: a list query on the data set (dataset.ts) and what every adapter must
 * answer. `ids` are objectIds in result order; `count` the total; `rows` statistics rows;
 * `fields` the sorted keys of the first result record.
 */
export interface QueryConformanceCase {
  readonly name: string;
  readonly className: string;
  readonly params: CaseParams;
  readonly ids?: readonly string[];
  readonly count?: number;
  readonly rows?: ReadonlyArray<Readonly<Record<string, Value>>>;
  readonly fields?: readonly string[];
}

const ptr = (objectId: string, className = 'Team') => ({ __type: 'Pointer', className, objectId });
const d = (iso: string) => ({ __type: 'Date', iso });
const geo = (latitude: number, longitude: number) => ({ __type: 'GeoPoint', latitude, longitude });
const PARIS = geo(48.8566, 2.3522);
const ALL = ['p01', 'p02', 'p03', 'p04', 'p05', 'p06', 'p07', 'p08'];

const find = (name: string, where: object | undefined, ids: readonly string[], extra: CaseParams = {}): QueryConformanceCase => ({
  name,
  className: 'Player',
  params: where ? { where, ...extra } : extra,
  ids,
});

/** The shared query suite. Every adapter must return exactly these rows in exactly this order. */
export const queryConformanceCases: readonly QueryConformanceCase[] = [
  find('empty where lists everything in createdAt order, ties by objectId', undefined, ALL),
  find('equality on a number', { score: 20 }, ['p02', 'p05']),
  find('$ne matches null and missing', { score: { $ne: 20 } }, ['p01', 'p03', 'p04', 'p06', 'p07', 'p08']),
  find('$gt', { score: { $gt: 10 } }, ['p02', 'p03', 'p05', 'p08']),
  find('$gte with $lt on one key', { score: { $gte: 10, $lt: 30 } }, ['p01', 'p02', 'p05']),
  find('$lte with fractions and negatives', { score: { $lte: 5.5 } }, ['p06', 'p07']),
  find('$in', { score: { $in: [10, 30, 99] } }, ['p01', 'p03']),
  find('$nin matches missing', { score: { $nin: [10, 30] } }, ['p02', 'p04', 'p05', 'p06', 'p07', 'p08']),
  find('$exists false', { score: { $exists: false } }, ['p04']),
  find('$exists true', { score: { $exists: true } }, ['p01', 'p02', 'p03', 'p05', 'p06', 'p07', 'p08']),
  find('equality with null matches missing', { score: null }, ['p04']),
  find('equality on an array field means contains', { tags: 'a' }, ['p01', 'p05', 'p08']),
  find('$all', { tags: { $all: ['a', 'b'] } }, ['p01', 'p08']),
  find('$all with an empty list matches nothing', { tags: { $all: [] } }, []),
  find('equality with an array: the whole array or an element', { tags: ['a', 'b'] }, ['p01', 'p07']),
  find('$in on an array field: any element', { tags: { $in: ['c', 1] } }, ['p02', 'p05', 'p06', 'p08']),
  find('$nin on an array field', { tags: { $nin: ['a'] } }, ['p02', 'p03', 'p04', 'p06', 'p07']),
  find('null on an array field: missing or holding null', { tags: null }, ['p04', 'p05']),
  find('an empty array exists', { tags: { $exists: true } }, ['p01', 'p02', 'p03', 'p05', 'p06', 'p07', 'p08']),
  find('dotted key into an Object column', { 'profile.city': 'Paris' }, ['p01', 'p03']),
  find('range on a dotted key', { 'profile.level': { $gte: 3 } }, ['p01', 'p05', 'p06']),
  find('dotted key missing or null', { 'profile.city': { $exists: false } }, ['p04', 'p05', 'p06', 'p08']),
  find('dotted key into a nested array', { 'profile.tags': 'x' }, ['p06']),
  find('Date column with the Date encoding', { born: { $lt: d('1990-05-01 00:00:00') } }, ['p02', 'p08']),
  find('Date equality', { born: d('1990-05-01T00:00:00.000Z') }, ['p01', 'p05']),
  find('a string never matches a Date column', { born: { $gt: '1980-01-01' } }, []),
  find('createdAt accepts a plain string', { createdAt: { $gte: '2024-01-01 00:05:00' } }, ['p05', 'p06', 'p07', 'p08']),
  find('createdAt with a Date', { createdAt: { $lt: d('2024-01-01 00:03:00') } }, ['p01', 'p02']),
  find('Boolean true', { active: true }, ['p01', 'p03', 'p06', 'p08']),
  find('Boolean $ne true matches missing', { active: { $ne: true } }, ['p02', 'p04', 'p05', 'p07']),
  find('Boolean false', { active: false }, ['p02', 'p05']),
  find('Pointer equality', { team: ptr('T1') }, ['p01', 'p03', 'p07']),
  find('Pointer $ne', { team: { $ne: ptr('T1') } }, ['p02', 'p04', 'p05', 'p06', 'p08']),
  find('Pointer $in', { team: { $in: [ptr('T2'), ptr('T3')] } }, ['p02', 'p05', 'p06']),
  find('Pointer of another class never matches', { team: ptr('T1', 'Other') }, []),
  find('$inQuery on a Pointer', { team: { $inQuery: { className: 'Team', where: { winPct: { $gt: 0.5 } } } } }, ['p01', 'p03', 'p05', 'p07']),
  find('$notInQuery on a Pointer', { team: { $notInQuery: { className: 'Team', where: { winPct: { $gt: 0.5 } } } } }, ['p02', 'p04', 'p06', 'p08']),
  find('$inQuery limit counts the first inner records', { team: { $inQuery: { className: 'Team', where: {}, limit: 1 } } }, ['p01', 'p03', 'p07']),
  find('$inQuery on a missing table matches nothing', { team: { $inQuery: { className: 'Ghost', where: {} } } }, []),
  find('$select', { hometown: { $select: { query: { className: 'Team', where: {} }, key: 'city' } } }, ['p01', 'p02', 'p04', 'p05', 'p07']),
  find('$dontSelect', { hometown: { $dontSelect: { query: { className: 'Team', where: {} }, key: 'city' } } }, ['p03', 'p06', 'p08']),
  find('$relatedTo', { $relatedTo: { object: ptr('T1'), key: 'members' } }, ['p01', 'p03', 'p07']),
  {
    name: '$inQuery on a Relation column',
    className: 'Team',
    params: { where: { members: { $inQuery: { className: 'Player', where: { score: { $gte: 30 } } } } } },
    ids: ['T1'],
  },
  { name: 'Pointer equality on a Relation column', className: 'Team', params: { where: { members: ptr('p06', 'Player') } }, ids: ['T2'] },
  { name: '$ne on a Relation column', className: 'Team', params: { where: { members: { $ne: ptr('p06', 'Player') } } }, ids: ['T1', 'T3'] },
  find('$or', { $or: [{ score: { $lt: 0 } }, { name: 'bob' }] }, ['p02', 'p07']),
  find('$and', { $and: [{ score: { $gt: 5 } }, { active: true }] }, ['p01', 'p03', 'p06', 'p08']),
  find('$regex is case-sensitive', { name: { $regex: '^[a-d]' } }, ['p02', 'p04']),
  find('$regex with $options i', { name: { $regex: '^[a-d]', $options: 'i' } }, ['p01', 'p02', 'p03', 'p04']),
  find('$regex on non-ASCII text', { name: { $regex: 'lodie$' } }, ['p06']),
  find('$regex on an array field', { tags: { $regex: '^c' } }, ['p02', 'p06', 'p08']),
  find('$nearSphere sorts nearest first', { location: { $nearSphere: PARIS, $maxDistanceInKilometers: 20 } }, ['p01', 'p03']),
  find('$nearSphere defaults to 100 km', { location: { $nearSphere: PARIS } }, ['p01', 'p03']),
  find('$nearSphere in miles', { location: { $nearSphere: PARIS, $maxDistanceInMiles: 1000 } }, ['p01', 'p03', 'p06', 'p02']),
  find('$nearSphere in radians', { location: { $nearSphere: PARIS, $maxDistanceInRadians: 0.001 } }, ['p01', 'p03']),
  find('an explicit order overrides distance', { location: { $nearSphere: PARIS, $maxDistanceInMiles: 1000 } }, ['p03', 'p02', 'p01', 'p06'], { order: '-score' }),
  find('$within $box', { location: { $within: { $box: [geo(45, -5), geo(55, 15)] } } }, ['p01', 'p02', 'p03']),
  find('$within $box with swapped corners', { location: { $within: { $box: [geo(55, 15), geo(45, -5)] } } }, ['p01', 'p02', 'p03']),
  find('ascending order puts missing first', undefined, ['p04', 'p07', 'p06', 'p01', 'p02', 'p05', 'p03', 'p08'], { order: 'score' }),
  find('descending order puts missing last, ties by objectId ascending', undefined, ['p08', 'p03', 'p02', 'p05', 'p01', 'p06', 'p07', 'p04'], { order: '-score' }),
  find('strings order by code point', undefined, ['p07', 'p01', 'p03', 'p05', 'p02', 'p04', 'p08', 'p06'], { order: 'name' }),
  find('two order terms', undefined, ['p04', 'p07', 'p06', 'p01', 'p02', 'p05', 'p03', 'p08'], { order: 'score,-name' }),
  find('descending createdAt, ties by objectId ascending', undefined, ['p08', 'p06', 'p07', 'p05', 'p04', 'p03', 'p02', 'p01'], { order: '-createdAt' }),
  find('limit and skip', undefined, ['p02', 'p03'], { limit: 2, skip: 1 }),
  find('limit 0 returns no records', undefined, [], { limit: 0 }),
  { name: 'keys selects columns', className: 'Player', params: { keys: 'name,score', limit: 1 }, ids: ['p01'], fields: ['createdAt', 'name', 'objectId', 'score', 'updatedAt'] },
  {
    name: 'keys with -exclusions',
    className: 'Player',
    params: { keys: '-tags,-profile,-location', limit: 1 },
    ids: ['p01'],
    fields: ['active', 'born', 'createdAt', 'hometown', 'name', 'objectId', 'score', 'team', 'updatedAt'],
  },
  { name: 'count ignores limit and skip', className: 'Player', params: { where: { score: { $gt: 10 } }, count: 1, limit: 1, skip: 1 }, ids: ['p03'], count: 4 },
  { name: 'count alone', className: 'Player', params: { count: 1, limit: 0 }, count: 8 },
  { name: 'a missing table has no records', className: 'Ghost', params: { where: { a: 1 }, count: 1 }, ids: [], count: 0 },
  { name: 'sum', className: 'Player', params: { sum: 'score' }, rows: [{ _sumScore: 182.5 }] },
  { name: 'sum with where', className: 'Player', params: { where: { active: true }, sum: 'score' }, rows: [{ _sumScore: 145.5 }] },
  {
    name: 'average, max and min',
    className: 'Player',
    params: { average: 'score', max: 'score', min: 'score' },
    rows: [{ _avgScore: 182.5 / 7, _maxScore: 100, _minScore: -3 }],
  },
  {
    name: 'max of a String and min of a Date',
    className: 'Player',
    params: { max: 'name', min: 'born' },
    rows: [{ _maxName: 'Élodie', _minBorn: d('1970-01-01T00:00:00.000Z') }],
  },
  {
    name: 'groupby with groupcount, groups ascending with null first',
    className: 'Player',
    params: { groupby: 'active', sum: 'score', groupcount: true },
    rows: [
      { _sumScore: -3, _count: 2, active: null },
      { _sumScore: 40, _count: 2, active: false },
      { _sumScore: 145.5, _count: 4, active: true },
    ],
  },
  {
    name: 'order over result columns is case-insensitive',
    className: 'Player',
    params: { groupby: 'active', sum: 'score', order: '-_sumscore' },
    rows: [
      { _sumScore: 145.5, active: true },
      { _sumScore: 40, active: false },
      { _sumScore: -3, active: null },
    ],
  },
  {
    name: 'order by _count then group column',
    className: 'Player',
    params: { groupby: 'hometown', groupcount: 'true', order: '-_count,hometown' },
    rows: [
      { _count: 2, hometown: 'Berlin' },
      { _count: 2, hometown: 'Paris' },
      { _count: 1, hometown: null },
      { _count: 1, hometown: 'Lyon' },
      { _count: 1, hometown: 'Madrid' },
      { _count: 1, hometown: 'Sydney' },
    ],
  },
  {
    name: 'having over result columns',
    className: 'Player',
    params: { groupby: 'hometown', groupcount: true, having: { _count: { $gt: 1 } } },
    rows: [
      { _count: 2, hometown: 'Berlin' },
      { _count: 2, hometown: 'Paris' },
    ],
  },
  {
    name: 'a Date column groups by day',
    className: 'Player',
    params: { groupby: 'born', groupcount: true },
    rows: [
      { _count: 3, born: null },
      { _count: 1, born: '1970-01-01' },
      { _count: 1, born: '1985-01-01' },
      { _count: 2, born: '1990-05-01' },
      { _count: 1, born: '2000-12-31' },
    ],
  },
  {
    name: 'groupby alone gives distinct values',
    className: 'Player',
    params: { groupby: 'hometown' },
    rows: [{ hometown: null }, { hometown: 'Berlin' }, { hometown: 'Lyon' }, { hometown: 'Madrid' }, { hometown: 'Paris' }, { hometown: 'Sydney' }],
  },
  {
    name: 'statistics with limit and skip',
    className: 'Player',
    params: { groupby: 'hometown', limit: 2, skip: 1 },
    rows: [{ hometown: 'Berlin' }, { hometown: 'Lyon' }],
  },
  {
    name: 'groupby a Pointer column',
    className: 'Player',
    params: { groupby: 'team', groupcount: true, where: { team: { $exists: true } } },
    rows: [
      { _count: 3, team: ptr('T1') },
      { _count: 2, team: ptr('T2') },
      { _count: 1, team: ptr('T3') },
    ],
  },
];

/** Encodes case parameters as a query string the way the official SDK does. */
export function caseSearchParams(params: CaseParams): URLSearchParams {
  const out = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) out.set(k, typeof v === 'object' ? JSON.stringify(v) : String(v));
  return out;
}
