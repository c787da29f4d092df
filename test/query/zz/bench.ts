import { Query } from 'mingo';
import { runFind, runCount } from '../../../src/query/evaluate/index.js';
import { parseListQuery } from '../../../src/query/parse.js';
import type { StoredRecord } from '../../../src/core/values.js';
import type { TableSchema } from '../../../src/query/plan.js';
import { DEFAULT_SETTINGS } from '../../../src/app/application.js';

const N = 100_000;
const cities = ['Paris', 'Berlin', 'Lyon', 'Madrid', 'Rome'];
const records: StoredRecord[] = [];
let seed = 1;
const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
for (let i = 0; i < N; i++) {
  const ms = Date.UTC(2024, 0, 1) + i * 1000;
  records.push({
    objectId: 'id' + i.toString(36).padStart(6, '0'),
    createdAt: { __type: 'Date', iso: new Date(ms).toISOString() },
    updatedAt: { __type: 'Date', iso: new Date(ms).toISOString() },
    name: 'user' + i,
    score: Math.floor(rnd() * 1000),
    tags: [cities[i % 5]!.toLowerCase(), 't' + (i % 7)],
    profile: { city: cities[i % 5]!, level: i % 10 },
    active: i % 3 === 0,
  } as StoredRecord);
}
const plain = records.map((r) => ({ ...r, createdAt: new Date(r.createdAt.iso) }));
const schema: TableSchema = { className: 'B', columns: { name: { type: 'String' }, score: { type: 'Number' }, tags: { type: 'Array' }, profile: { type: 'Object' }, active: { type: 'Boolean' } }, indexes: [] };
const env = { className: 'B', records: () => records, relationMembers: () => new Set<string>(), schema: () => schema };
const settings = { ...DEFAULT_SETTINGS, features: { ...DEFAULT_SETTINGS.features, regex: true }, query: { ...DEFAULT_SETTINGS.query, maxLimit: 1_000_000 } };

const shapes: Array<[string, object, string | null, number, any]> = [
  ['eq string', { name: 'user4242' }, null, 100, null],
  ['range', { score: { $gt: 500, $lt: 600 } }, null, 100, null],
  ['$in', { score: { $in: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] } }, null, 100, null],
  ['array contains', { tags: 'paris' }, null, 100, null],
  ['dotted', { 'profile.city': 'Lyon' }, null, 100, null],
  ['$or', { $or: [{ score: { $lt: 10 } }, { active: true, 'profile.level': 3 }] }, null, 100, null],
  ['$ne', { score: { $ne: 5 } }, null, 100, null],
  ['$exists', { score: { $exists: true } }, null, 100, null],
  ['$regex', { name: { $regex: '^user1' } }, null, 100, null],
  ['sort desc limit 10', { active: true }, '-score', 10, { score: -1 }],
  ['sort all', { score: { $gte: 0 } }, 'score', 1000, { score: 1 }],
];
function time(fn: () => unknown, reps = 5): number {
  fn();
  const t = performance.now();
  for (let i = 0; i < reps; i++) fn();
  return (performance.now() - t) / reps;
}
for (const [name, where, order, limit, sort] of shapes) {
  const params = new URLSearchParams({ where: JSON.stringify(where), limit: String(limit) });
  if (order) params.set('order', order);
  const ours = time(() => {
    const q = parseListQuery(params, { className: 'B', schema: () => schema, settings });
    if (q.kind !== 'find') throw new Error();
    return runFind(records, q.plan, env);
  });
  const mingo = time(() => {
    let c = new Query(where as any).find(plain as any);
    if (sort) c = c.sort(sort);
    else c = c.sort({ createdAt: 1, objectId: 1 });
    return c.limit(limit).all();
  });
  console.log(name.padEnd(22), ours.toFixed(2).padStart(8), 'ms  mingo', mingo.toFixed(2).padStart(8), 'ms  x', (mingo / ours).toFixed(1));
}
const c1 = time(() => runCount(records, parseListQuery(new URLSearchParams({ where: '{"active":true}', count: '1', limit: '0' }), { className: 'B', schema: () => schema, settings }).kind === 'count' ? (parseListQuery(new URLSearchParams({ where: '{"active":true}', count: '1', limit: '0' }), { className: 'B', schema: () => schema, settings }) as any).where : null, env));
const c2 = time(() => new Query({ active: true }).find(plain as any).count());
console.log('count'.padEnd(22), c1.toFixed(2).padStart(8), 'ms  mingo', c2.toFixed(2).padStart(8), 'ms  x', (c2 / c1).toFixed(1));
