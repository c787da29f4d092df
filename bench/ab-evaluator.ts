/**
 * Profiling aid (not part of `npm run bench`): `runFind` of two source trees (say main and a branch)
 * and mingo over the same 100k records in one process, in alternating rounds, for each where given.
 * Separate runs of each build on this shared machine differ by more than most changes; rounds paired
 * in one process (as in bench/harness.ts `compare`) do not.
 *
 * @example A_ROOT=/tmp/main-copy B_ROOT=$PWD npx tsx bench/ab-evaluator.ts '{"level":{"$ne":3}}' '{"tags":"t5"}'
 */
import { Query } from 'mingo';
import { DEFAULT_SETTINGS } from '../src/app/application.js';
import type { StoredRecord } from '../src/core/values.js';
import type { EvalEnv, FindHints } from '../src/query/evaluate/index.js';
import { parseListQuery } from '../src/query/parse.js';
import type { FindPlan, TableSchema } from '../src/query/plan.js';
import { BENCH_COLUMNS, CLASS_NAME, makeRecords } from './data.js';
import { median } from './harness.js';

type RunFind = (records: readonly StoredRecord[], plan: FindPlan, env: EvalEnv, hints?: FindHints) => StoredRecord[];

const roots = { A: process.env.A_ROOT, B: process.env.B_ROOT };
if (!roots.A || !roots.B) throw new Error('[bench] set A_ROOT and B_ROOT to two source trees');
const a = (await import(`${roots.A}/src/query/evaluate/index.ts`)) as { runFind: RunFind };
const b = (await import(`${roots.B}/src/query/evaluate/index.ts`)) as { runFind: RunFind };
const size = 100_000;
const schema: TableSchema = { className: CLASS_NAME, columns: BENCH_COLUMNS, indexes: [] };
const settings = { ...DEFAULT_SETTINGS, features: { ...DEFAULT_SETTINGS.features, regex: true }, query: { ...DEFAULT_SETTINGS.query, maxLimit: size } };
const records = makeRecords(size, 2);
const env: EvalEnv = { className: CLASS_NAME, records: () => [], relationMembers: () => new Set(), schema: () => schema };
const hints = { inCreationOrder: true };

/** Calls per second of this process's CPU time over ~150 ms. */
function rate(op: () => unknown): number {
  const t0 = process.cpuUsage();
  const start = performance.now();
  let n = 0;
  while (performance.now() - start < 150) (op(), n++);
  const { user, system } = process.cpuUsage(t0);
  return (n / (user + system)) * 1e6;
}

for (const where of process.argv.slice(2)) {
  const query = parseListQuery(new URLSearchParams({ where, limit: String(size) }), { className: CLASS_NAME, schema: () => schema, settings });
  if (query.kind !== 'find') throw new Error('[bench] expected a find plan');
  const plan = query.plan;
  const mingo = new Query(JSON.parse(where) as Record<string, unknown>, {});
  const sides = { A: () => a.runFind(records, plan, env, hints), B: () => b.runFind(records, plan, env, hints), mingo: () => mingo.find(records).all() };
  const names = Object.keys(sides) as Array<keyof typeof sides>;
  for (const name of names) for (let i = 0; i < 5; i++) sides[name]();
  const rounds: Record<keyof typeof sides, number[]> = { A: [], B: [], mingo: [] };
  for (let round = 0; round < 9; round++) for (const name of round % 2 ? names : [...names].reverse()) rounds[name].push(rate(sides[name]));
  const ratio = (x: number[], y: number[]) => median(x.map((v, i) => v / y[i]!)).toFixed(2);
  process.stdout.write(
    `${where}: A ${median(rounds.A).toFixed(0)}/s, B ${median(rounds.B).toFixed(0)}/s, mingo ${median(rounds.mingo).toFixed(1)}/s; ` +
      `B/A ${ratio(rounds.B, rounds.A)}, A/mingo ${ratio(rounds.A, rounds.mingo)}, B/mingo ${ratio(rounds.B, rounds.mingo)}\n`,
  );
}
