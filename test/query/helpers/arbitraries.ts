import fc from 'fast-check';
import type { StoredRecord, Value } from '../../../src/core/values.js';
import type { TableSchema } from '../../../src/query/plan.js';
import type { TableData } from './fixture.js';

/**
 * Random data and random wire queries for the differential test. Values come from small pools so
 * that equalities, ties and groups actually happen; every type (and type mismatches) appears.
 */

export const T_SCHEMA: TableSchema = {
  className: 'T',
  columns: {
    s: { type: 'String' },
    n: { type: 'Number' },
    b: { type: 'Boolean' },
    d: { type: 'Date' },
    p: { type: 'Pointer', targetClass: 'U' },
    g: { type: 'GeoPoint' },
    a: { type: 'Array' },
    o: { type: 'Object' },
    f: { type: 'File' },
    r: { type: 'Relation', targetClass: 'U' },
  },
  indexes: [],
};

export const U_SCHEMA: TableSchema = {
  className: 'U',
  columns: {
    name: { type: 'String' },
    k: { type: 'Number' },
    d: { type: 'Date' },
    b: { type: 'Boolean' },
    rel: { type: 'Relation', targetClass: 'T' },
  },
  indexes: [],
};

const STRINGS = ['', 'a', 'b', 'A', 'ab', 'ba', 'é', 'É', '𝄞', '\uFFFD', "it's", '%_', 'a"b', 'x y', 'Ab\nc'];
const NUMBERS = [-2, -1, -0.5, 0, 0.25, 1, 1.5, 2, 3, 10, 100];
const ISOS = [
  '1970-01-01T00:00:00.000Z',
  '1999-12-31T23:59:59.999Z',
  '2000-01-01T00:00:00.000Z',
  '2020-02-29T12:00:00.000Z',
  '2020-02-29T16:30:00.000Z',
  '2024-06-01T08:30:00.500Z',
];
const U_IDS = ['u1', 'u2', 'u3', 'u4'];
const CENTERS: Array<[number, number]> = [
  [0, 0],
  [10, 10],
  [48.85, 2.35],
  [-33.9, 151.2],
  [89.9, 0],
  [0, 179.9],
  [0, -179.9],
];

export const strings = fc.constantFrom(...STRINGS);
export const numbers = fc.constantFrom(...NUMBERS);
export const dates = fc.constantFrom(...ISOS).map((iso) => ({ __type: 'Date', iso }) as const);
export const pointers = fc.constantFrom(...U_IDS).map((objectId) => ({ __type: 'Pointer', className: 'U', objectId }) as const);
export const geoPoints = fc
  .tuple(fc.constantFrom(...CENTERS), fc.integer({ min: -2000, max: 2000 }), fc.integer({ min: -2000, max: 2000 }))
  .map(([[lat, lng], dy, dx]) => ({
    __type: 'GeoPoint',
    latitude: Math.max(-90, Math.min(90, lat + dy / 1000)),
    longitude: Math.max(-180, Math.min(180, lng + dx / 1000)),
  }) as const);
export const files = fc.constantFrom('f1', 'f2').map((url) => ({ __type: 'File', filename: 'x.txt', url }) as const);
const scalars: fc.Arbitrary<Value> = fc.oneof(fc.constant(null), fc.boolean(), numbers, strings, dates, pointers);

/** Mixed nested values (arrays and objects up to two levels). */
export const nested: fc.Arbitrary<Value> = fc.letrec<{ v: Value }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalars,
    geoPoints,
    fc.array(tie('v'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom('x', 'y', 'z'), tie('v'), { maxKeys: 3 }),
  ),
})).v;

const maybe = <T extends Value>(arb: fc.Arbitrary<T>) => fc.oneof({ weight: 6, arbitrary: arb as fc.Arbitrary<Value> }, { weight: 1, arbitrary: fc.constant(null) }, { weight: 2, arbitrary: fc.constant(undefined) });

const CREATED = [0, 1_000, 2_000, 86_400_000 - 1, 86_400_000, 951_825_600_000];

function withSystem(objectId: string, created: number, updated: number, fields: Record<string, Value | undefined>): StoredRecord {
  const out: Record<string, Value> = {
    objectId,
    createdAt: { __type: 'Date', iso: new Date(created).toISOString() },
    updatedAt: { __type: 'Date', iso: new Date(updated).toISOString() },
  };
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) out[k] = v;
  return out as StoredRecord;
}

const objectIds = (prefix: string, max: number) =>
  fc.uniqueArray(fc.stringMatching(/^[A-Za-z0-9]{1,3}$/), { minLength: Math.min(6, max), maxLength: max }).map((ids) => ids.map((id) => `${prefix}${id}`));

/** A random data set: table T (every column type) and table U (targets of Pointers and Relations). */
export const dataSets: fc.Arbitrary<TableData[]> = fc
  .record({
    tIds: objectIds('t', 24),
    tFields: fc.array(
      fc.record({
        s: maybe(strings),
        n: maybe(numbers),
        b: maybe(fc.boolean()),
        d: maybe(dates),
        p: maybe(pointers),
        g: maybe(geoPoints),
        a: maybe(fc.array(nested, { maxLength: 4 })),
        o: maybe(fc.dictionary(fc.constantFrom('x', 'y', 'z'), nested, { maxKeys: 3 })),
        f: maybe(files),
        created: fc.constantFrom(...CREATED),
        updated: fc.constantFrom(...CREATED),
        r: fc.subarray(U_IDS),
      }),
      { minLength: 24, maxLength: 24 },
    ),
    uFields: fc.array(
      fc.record({ name: maybe(strings), k: maybe(numbers), d: maybe(dates), b: maybe(fc.boolean()), created: fc.constantFrom(...CREATED), rel: fc.array(fc.nat(23), { maxLength: 4 }) }),
      { minLength: 4, maxLength: 4 },
    ),
  })
  .map(({ tIds, tFields, uFields }): TableData[] => {
    const tRecords = tIds.map((id, i) => {
      const { created, updated, r: _r, ...fields } = tFields[i]!;
      return withSystem(id, created, updated, fields);
    });
    const tRelations: Record<string, string[]> = {};
    tIds.forEach((id, i) => (tRelations[id] = tFields[i]!.r));
    const uRelations: Record<string, string[]> = {};
    const uRecords = U_IDS.map((id, i) => {
      const { created, rel, ...fields } = uFields[i]!;
      uRelations[id] = [...new Set(rel.filter((j) => j < tIds.length).map((j) => tIds[j]!))];
      return withSystem(id, created, created, fields);
    });
    return [
      { schema: T_SCHEMA, records: tRecords, relations: { r: tRelations } },
      { schema: U_SCHEMA, records: uRecords, relations: { rel: uRelations } },
    ];
  });

// ---------------------------------------------------------------- queries

type J = Value | { [key: string]: unknown } | unknown[];
const wire = (v: Value): J => v;
const anyValue: fc.Arbitrary<J> = fc.oneof(scalars, geoPoints, files, fc.array(nested, { maxLength: 2 }), fc.dictionary(fc.constantFrom('x', 'y'), scalars, { maxKeys: 2 })).map(wire);
const orderable: fc.Arbitrary<J> = fc.oneof(numbers, strings, dates).map(wire);
const createdOperand: fc.Arbitrary<J> = fc.oneof(
  fc.constantFrom(...CREATED).map((ms) => ({ __type: 'Date', iso: new Date(ms).toISOString() })),
  fc.constantFrom('1970-01-01 00:00:01', '1970-01-02', '1970-01-01T08:00:00+08:00'),
);

const T_FIELDS = ['s', 'n', 'b', 'd', 'p', 'g', 'a', 'o', 'f', 'o.x', 'o.y', 'o.x.y', 'objectId', 'zz'];
const REGEXES = ['^a', 'b$', 'A', '[aé]', '.', '^$', 'x y', '(a|b)+', '\\d', 'É', '^.{2}$', '𝄞', "'", 'c$'];

/** Operands of the field's own type most of the time, anything sometimes (type mismatches). */
function operandFor(field: string): fc.Arbitrary<J> {
  const own: Record<string, fc.Arbitrary<J>> = {
    s: strings,
    n: numbers,
    b: fc.boolean(),
    d: dates,
    p: pointers,
    g: geoPoints,
    a: scalars.map(wire),
    o: fc.dictionary(fc.constantFrom('x', 'y', 'z'), scalars, { maxKeys: 1 }),
    'o.x': scalars.map(wire),
    'o.y': scalars.map(wire),
    'o.x.y': scalars.map(wire),
    f: files,
    objectId: strings,
  };
  const mine = own[field];
  return mine ? fc.oneof({ weight: 4, arbitrary: mine }, { weight: 1, arbitrary: anyValue }) : anyValue;
}

function orderableFor(field: string): fc.Arbitrary<J> {
  if (field === 'n' || field === 'o.x' || field === 'a') return fc.oneof({ weight: 3, arbitrary: numbers.map(wire) }, { weight: 1, arbitrary: orderable });
  if (field === 's') return fc.oneof({ weight: 3, arbitrary: strings.map(wire) }, { weight: 1, arbitrary: orderable });
  if (field === 'd') return fc.oneof({ weight: 3, arbitrary: dates.map(wire) }, { weight: 1, arbitrary: orderable });
  return orderable;
}

function leaf(field: string): fc.Arbitrary<Record<string, J>> {
  const value = operandFor(field);
  const ops: Array<fc.Arbitrary<J>> = [
    value,
    value.map((v) => ({ $ne: v })),
    fc.tuple(fc.constantFrom('$lt', '$lte', '$gt', '$gte'), orderableFor(field)).map(([op, v]) => ({ [op]: v })),
    fc.tuple(fc.constantFrom('$in', '$nin'), fc.array(value, { maxLength: 3 })).map(([op, v]) => ({ [op]: v })),
    fc.boolean().map((v) => ({ $exists: v })),
    fc.array(value, { maxLength: 2 }).map((v) => ({ $all: v })),
    fc.tuple(fc.constantFrom(...REGEXES), fc.constantFrom('', 'i', 'm', 's', 'im')).map(([r, o]) => (o ? { $regex: r, $options: o } : { $regex: r })),
  ];
  if (['p', 'a', 'o.x', 'zz'].includes(field)) {
    ops.push(fc.tuple(fc.constantFrom('$inQuery', '$notInQuery'), innerQuery).map(([op, q]) => ({ [op]: q })));
  }
  if (['s', 'n', 'b', 'd', 'p', 'a', 'o', 'objectId', 'zz'].includes(field)) {
    const keys = field === 'a' ? ['name', 'k', 'b', 'objectId'] : ['name', 'k', 'b', 'd', 'objectId', 'createdAt'];
    ops.push(
      fc.tuple(fc.constantFrom('$select', '$dontSelect'), innerQuery, fc.constantFrom(...keys)).map(([op, query, key]) => ({ [op]: { query, key } })),
    );
  }
  if (field === 'g') {
    ops.push(
      fc.tuple(geoPoints, fc.constantFrom<[string | null, number]>([null, 0], ['$maxDistanceInKilometers', 1], ['$maxDistanceInKilometers', 500], ['$maxDistanceInMiles', 5000], ['$maxDistanceInRadians', 2])).map(
        ([point, [key, dist]]) => (key ? { $nearSphere: point, [key]: dist } : { $nearSphere: point }),
      ),
      fc.tuple(geoPoints, geoPoints).map(([a, b]) => ({ $within: { $box: [a, b] } })),
    );
  }
  return fc.oneof(...ops).map((cond) => ({ [field]: cond }));
}

const innerQuery: fc.Arbitrary<J> = fc
  .tuple(
    fc.oneof(
      fc.constant({}),
      fc.tuple(fc.constantFrom('name', 'k', 'b', 'd'), fc.oneof(anyValue, orderable.map((v) => ({ $gte: v })))).map(([k, v]) => ({ [k]: v })),
    ),
    fc.option(fc.integer({ min: 0, max: 5 }), { nil: undefined }),
  )
  .map(([where, limit]) => (limit === undefined ? { className: 'U', where } : { className: 'U', where, limit }));

const createdLeaf = fc
  .tuple(fc.constantFrom('createdAt', 'updatedAt'), fc.constantFrom('$lt', '$lte', '$gt', '$gte', '$eq', '$ne'), createdOperand)
  .map(([f, op, v]) => ({ [f]: { [op]: v } }));

/** Conditions a Relation column accepts: a Pointer, $ne, $inQuery, $notInQuery. */
const relationLeaf = fc
  .oneof(
    pointers.map(wire),
    pointers.map((v) => ({ $ne: v })),
    fc.constantFrom('T', 'U').map((className) => ({ __type: 'Pointer', className, objectId: 'u1' })),
    fc.tuple(fc.constantFrom('$inQuery', '$notInQuery'), innerQuery).map(([op, q]) => ({ [op]: q })),
  )
  .map((cond) => ({ r: cond }));

const relatedTo = fc.constantFrom(...U_IDS, 'u9').map((objectId) => ({ $relatedTo: { object: { __type: 'Pointer', className: 'U', objectId }, key: 'rel' } }));

/** A random where object over table T. */
export const whereT: fc.Arbitrary<Record<string, J>> = fc.letrec<{ w: Record<string, J> }>((tie) => ({
  w: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 6, arbitrary: fc.constantFrom(...T_FIELDS).chain(leaf) },
    { weight: 1, arbitrary: createdLeaf },
    { weight: 1, arbitrary: relatedTo },
    { weight: 1, arbitrary: relationLeaf },
    { weight: 2, arbitrary: fc.tuple(fc.constantFrom('$or', '$and'), fc.array(tie('w'), { minLength: 1, maxLength: 3 })).map(([op, ws]) => ({ [op]: ws })) },
    { weight: 1, arbitrary: fc.array(fc.constantFrom(...T_FIELDS).chain(leaf), { minLength: 2, maxLength: 3 }).map((ws) => Object.assign({}, ...ws) as Record<string, J>) },
  ),
})).w;

const ORDERABLE = ['s', 'n', 'd', 'createdAt', 'updatedAt', 'objectId', 'zz'];

/** Random find parameters (where, order, keys, limit, skip). */
export const findParams = fc
  .record({
    where: fc.option(whereT, { nil: undefined, freq: 6 }),
    order: fc.option(fc.subarray(ORDERABLE, { maxLength: 3 }).chain((cols) => fc.tuple(...cols.map((c) => fc.boolean().map((d) => (d ? `-${c}` : c))))), { nil: undefined }),
    keys: fc.option(fc.oneof(fc.subarray(['s', 'n', 'a', 'o', 'g', 'zz']).map((k) => k.join(',')), fc.subarray(['s', 'n', 'a', 'g'], { minLength: 1 }).map((k) => k.map((x) => `-${x}`).join(','))), { nil: undefined }),
    limit: fc.option(fc.integer({ min: 0, max: 30 }), { nil: undefined, freq: 2 }),
    skip: fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.integer({ min: 0, max: 6 }) }),
  })
  .map((p) => {
    const out: Record<string, string> = {};
    if (p.where) out.where = JSON.stringify(p.where);
    if (p.order && p.order.length > 0) out.order = p.order.join(',');
    if (p.keys) out.keys = p.keys;
    if (p.limit !== undefined) out.limit = String(p.limit);
    if (p.skip !== undefined) out.skip = String(p.skip);
    return out;
  });

const GROUPABLE = ['s', 'n', 'b', 'd', 'p', 'createdAt', 'objectId'];

/** Random statistics parameters. */
export const statsParams = fc
  .record({
    where: fc.option(whereT, { nil: undefined, freq: 2 }),
    groupby: fc.subarray(GROUPABLE, { maxLength: 2 }),
    sum: fc.boolean(),
    average: fc.boolean(),
    max: fc.subarray(['n', 'd', 's'], { maxLength: 2 }),
    min: fc.subarray(['n', 'd', 's'], { maxLength: 2 }),
    groupcount: fc.boolean(),
    having: fc.option(fc.tuple(fc.constantFrom('$gt', '$lte', '$ne', '$eq'), fc.constantFrom(-1, 0, 1, 2, 3, 10)), { nil: undefined, freq: 2 }),
    order: fc.boolean(),
    limit: fc.option(fc.integer({ min: 0, max: 10 }), { nil: undefined, freq: 2 }),
    skip: fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.integer({ min: 0, max: 3 }) }),
  })
  .filter((p) => p.groupby.length > 0 || p.sum || p.average || p.max.length > 0 || p.min.length > 0 || p.groupcount)
  .map((p) => {
    const out: Record<string, string> = {};
    if (p.where) out.where = JSON.stringify(p.where);
    if (p.groupby.length) out.groupby = p.groupby.join(',');
    if (p.sum) out.sum = 'n';
    if (p.average) out.average = 'n';
    if (p.max.length) out.max = p.max.join(',');
    if (p.min.length) out.min = p.min.join(',');
    if (p.groupcount) out.groupcount = 'true';
    const numeric = [p.sum ? '_sumN' : '', p.average ? '_avgN' : '', p.max.includes('n') ? '_maxN' : '', p.min.includes('n') ? '_minN' : '', p.groupcount ? '_count' : ''].filter(Boolean);
    if (p.having && numeric.length > 0) out.having = JSON.stringify({ [numeric[0]!]: { [p.having[0]]: p.having[1] } });
    const names = [...numeric, ...p.groupby, ...p.max.filter((m) => m !== 'n').map((m) => `_max${m.toUpperCase()}`)];
    if (p.order && names.length > 0) out.order = names.slice(0, 2).map((n, i) => (i === 0 ? `-${n.toLowerCase()}` : n)).join(',');
    if (p.limit !== undefined) out.limit = String(p.limit);
    if (p.skip !== undefined) out.skip = String(p.skip);
    return out;
  });

export const timeZones = fc.constantFrom('UTC', 'Asia/Shanghai', 'America/New_York');
