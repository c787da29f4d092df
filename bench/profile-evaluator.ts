/**
 * Profiling aid (not part of `npm run bench`): runs one evaluator shape's "ours" side in a loop.
 *
 * @example npx tsx bench/build.ts bench/profile-evaluator.ts && node --cpu-prof --cpu-prof-dir=/tmp/prof bench/.build/profile-evaluator.mjs '{"level":{"$ne":3}}' 5000
 */
import { DEFAULT_SETTINGS } from '../src/app/application.js';
import { type EvalEnv, runFind } from '../src/query/evaluate/index.js';
import { parseListQuery } from '../src/query/parse.js';
import type { TableSchema } from '../src/query/plan.js';
import { BENCH_COLUMNS, CLASS_NAME, makeRecords } from './data.js';
import { opsPerSecond } from './harness.js';

const where = process.argv[2] ?? '{"level":{"$ne":3}}';
const ms = Math.min(60_000, Number(process.argv[3] ?? 3000));
const size = 100_000;
const schema: TableSchema = { className: CLASS_NAME, columns: BENCH_COLUMNS, indexes: [] };
const settings = { ...DEFAULT_SETTINGS, features: { ...DEFAULT_SETTINGS.features, regex: true }, query: { ...DEFAULT_SETTINGS.query, maxLimit: size } };
const query = parseListQuery(new URLSearchParams({ where, limit: String(size) }), { className: CLASS_NAME, schema: () => schema, settings });
if (query.kind !== 'find') throw new Error('find expected');
const plan = query.plan;
const records = makeRecords(size, 2);
// The bench's hint (its records are in creation order), so the profile shows the path it measures.
const hints = { inCreationOrder: true };
const env: EvalEnv = { className: CLASS_NAME, records: () => [], relationMembers: () => new Set(), schema: () => schema };
const ops = await opsPerSecond(() => runFind(records, plan, env, hints), ms, 1e8);
process.stdout.write(`${where}: ${ops.toFixed(1)} queries/s\n`);
