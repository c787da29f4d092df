/**
 * Group 2: the in-memory evaluator (the memory adapter's query engine and the reference semantics)
 * against mingo on 100k records (10k in quick mode), one row per query shape. Target: at least 5x
 * mingo's queries per second on every shape, and at least half the speed of the same filter
 * written by hand in JavaScript (the limit row beside each shape).
 *
 * Both sides compile the condition once outside the timed loop (our parser makes the plan, mingo
 * builds its Query) and, per call, scan the same array of records and return the matching records:
 * ours through `runFind` (filter, order, page), mingo through `query.find(records).all()` (plus
 * `.sort().limit()` for the ordered shape). Before timing, both results are checked to be the same
 * records in the same order. Like the memory adapter, ours is told when the records are already in
 * creation order (checked once here), which is also the order mingo returns them in.
 */
import { Query } from 'mingo';
import { DEFAULT_SETTINGS } from '../src/app/application.js';
import type { StoredRecord } from '../src/core/values.js';
import { type EvalEnv, runFind } from '../src/query/evaluate/index.js';
import { parseListQuery } from '../src/query/parse.js';
import type { FindPlan, TableSchema } from '../src/query/plan.js';
import { BENCH_COLUMNS, CLASS_NAME, makeRecords } from './data.js';
import { type BenchConfig, compare } from './harness.js';
import { type ResultRow, comparisonRow } from './report.js';

type Condition = Record<string, unknown>;

interface Shape {
  readonly name: string;
  readonly where: Condition;
  /** Our order parameter and mingo's sort spec (ties by objectId, as ours always breaks them). */
  readonly order?: { readonly param: string; readonly sort: Record<string, 1 | -1> };
  readonly limit?: number;
  /**
   * The same filter written by hand for this data set's shapes (the limit row): what a developer
   * would type knowing every column's type, with nothing generic about it.
   */
  readonly hand: (r: BenchRecord) => boolean;
}

/** The bench records' columns, as the hand-written predicates read them. */
interface BenchRecord {
  readonly objectId: string;
  readonly name: string;
  readonly category: string;
  readonly score: number;
  readonly level: number;
  readonly active: boolean;
  readonly tags: readonly string[];
  readonly address: { readonly city: string };
  readonly nickname?: string;
}

const IN_VALUES = Array.from({ length: 20 }, (_, i) => `c${i * 3}`);
const IN_SET = new Set(IN_VALUES);

const SHAPES: readonly Shape[] = [
  { name: 'equality (string)', where: { category: 'c42' }, hand: (r) => r.category === 'c42' },
  { name: 'range ($gte/$lt, ~10%)', where: { score: { $gte: 200_000, $lt: 300_000 } }, hand: (r) => r.score >= 200_000 && r.score < 300_000 },
  { name: '$in (20 values)', where: { category: { $in: IN_VALUES } }, hand: (r) => IN_SET.has(r.category) },
  { name: '$or of two equalities', where: { $or: [{ category: 'c7' }, { level: 3 }] }, hand: (r) => r.category === 'c7' || r.level === 3 },
  { name: '$all on an array', where: { tags: { $all: ['t1', 't3'] } }, hand: (r) => r.tags.includes('t1') && r.tags.includes('t3') },
  { name: 'equality on an array element', where: { tags: 't5' }, hand: (r) => r.tags.includes('t5') },
  { name: 'dotted key (address.city)', where: { 'address.city': 'city7' }, hand: (r) => r.address.city === 'city7' },
  { name: '$regex prefix', where: { name: { $regex: '^user12' } }, hand: (r) => r.name.startsWith('user12') },
  { name: '$exists: false', where: { nickname: { $exists: false } }, hand: (r) => r.nickname === undefined },
  { name: '$ne (~90% match)', where: { level: { $ne: 3 } }, hand: (r) => r.level !== 3 },
  {
    name: 'combined and/or',
    where: { level: { $gte: 3 }, $or: [{ active: true }, { tags: 't2' }] },
    hand: (r) => r.level >= 3 && (r.active || r.tags.includes('t2')),
  },
  {
    name: 'order -score + limit 100',
    where: { active: true },
    order: { param: '-score', sort: { score: -1, objectId: 1 } },
    limit: 100,
    hand: (r) => r.active,
  },
];

const SCHEMA: TableSchema = { className: CLASS_NAME, columns: BENCH_COLUMNS, indexes: [] };

export async function run(config: BenchConfig): Promise<ResultRow[]> {
  const size = config.quick ? 10_000 : 100_000;
  const records = makeRecords(size, 2);
  const settings = {
    ...DEFAULT_SETTINGS,
    features: { ...DEFAULT_SETTINGS.features, regex: true },
    query: { ...DEFAULT_SETTINGS.query, maxLimit: size },
  };
  const env: EvalEnv = { className: CLASS_NAME, records: () => [], relationMembers: () => new Set(), schema: () => SCHEMA };
  // The memory adapter tells runFind when its records are held in creation order (it tracks that on
  // insert); give the same hint here, after checking it is true of this data set.
  const hints = { inCreationOrder: inCreationOrder(records) };
  const rows: ResultRow[] = [];
  for (const shape of SHAPES) {
    const params = new URLSearchParams({ where: JSON.stringify(shape.where), limit: String(shape.limit ?? size) });
    if (shape.order) params.set('order', shape.order.param);
    const query = parseListQuery(params, { className: CLASS_NAME, schema: () => SCHEMA, settings });
    if (query.kind !== 'find') throw new Error(`[bench] ${shape.name}: expected a find plan`);
    const plan: FindPlan = query.plan;
    const mingo = new Query(shape.where, {});
    const ours = () => runFind(records, plan, env, hints);
    const order = shape.order;
    const reference = order
      ? () => mingo.find<StoredRecord>(records).sort(order.sort).limit(shape.limit ?? size).all()
      : () => mingo.find<StoredRecord>(records).all();
    const a = ours().map((r) => r.objectId);
    const b = reference().map((r) => r.objectId);
    const same = a.length === b.length && a.every((id, i) => id === b[i]);
    config.log(`evaluator: ${shape.name} (${a.length} matches)`);
    const result = await compare(config, ours, reference);
    rows.push(
      comparisonRow('evaluator', shape.name, 'mingo', result, 5, {
        unit: 'queries/s',
        detail: { records: size, matches: a.length, where: shape.where, sameResults: same, ...(same ? {} : { mingoMatches: b.length }) },
        ...(same ? {} : { note: `results differ: ${a.length} vs mingo ${b.length} records` }),
      }),
    );
    // The limit: the same filter (and order) hand-written over the same array. Target: within 2x.
    const typed = records as unknown as readonly BenchRecord[];
    const hand = order ? () => handTop(typed, shape.hand, shape.limit ?? size) : () => typed.filter(shape.hand);
    const h = hand().map((r) => r.objectId);
    const handSame = h.length === a.length && h.every((id, i) => id === a[i]);
    const handResult = await compare(config, ours, hand);
    rows.push(
      comparisonRow('evaluator', `${shape.name} vs hand-written`, 'hand-written JS', handResult, 0.5, {
        unit: 'queries/s',
        detail: { records: size, matches: a.length, sameResults: handSame },
        ...(handSame ? {} : { note: `results differ: ${a.length} vs hand-written ${h.length} records` }),
      }),
    );
  }
  return rows;
}

/** The ordered shape by hand: filter, sort by score descending (ties by objectId), first `limit`. */
function handTop(records: readonly BenchRecord[], pred: (r: BenchRecord) => boolean, limit: number): BenchRecord[] {
  const matches = records.filter(pred);
  matches.sort((x, y) => y.score - x.score || (x.objectId < y.objectId ? -1 : x.objectId > y.objectId ? 1 : 0));
  return matches.slice(0, limit);
}

function inCreationOrder(records: readonly StoredRecord[]): boolean {
  for (let i = 1; i < records.length; i++) {
    const a = records[i - 1]!, b = records[i]!;
    if (a.createdAt.iso > b.createdAt.iso || (a.createdAt.iso === b.createdAt.iso && a.objectId >= b.objectId)) return false;
  }
  return true;
}
