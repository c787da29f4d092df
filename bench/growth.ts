/**
 * Group 6: growth. The storage reads of group 1 on tables of 10k, 100k and 1M records (quick: 1k
 * and 10k), each query shaped to match the same number of records at every size (one id, ~100 per
 * category, score ranges holding ~1000 records, the first 100 of a range). Indexed reads should
 * then cost about the same at every size: the B-tree gets one or two levels deeper, nothing more.
 *
 * Each size measures ours against raw better-sqlite3 (as group 1) so a slowdown of the physical
 * engine (a table larger than the page cache) is told apart from one of ours. The row's ratio is
 * ours at the largest size over ours at the smallest; target: at least 0.5 (flat within B-tree
 * depth and cache effects).
 */
import { NAMESPACE, generateRecords } from './data.js';
import { type BenchConfig, type Comparison, type ResultRow, compare, round3 } from './harness.js';
import { storageWorkloads } from './storage-workloads.js';
import { benchRef, openSqliteFixture, seedTable } from './stores.js';

export const GROWTH_TARGET = 0.5;

function label(size: number): string {
  return size >= 1_000_000 ? `${size / 1_000_000}M` : `${size / 1000}k`;
}

export async function run(config: BenchConfig): Promise<ResultRow[]> {
  const sizes = config.quick ? [1_000, 10_000] : [10_000, 100_000, 1_000_000];
  const results = new Map<string, Array<{ size: number; result: Comparison }>>();
  for (const size of sizes) {
    const fixture = await openSqliteFixture(`growth-${label(size)}`);
    try {
      const ref = benchRef(NAMESPACE);
      const t0 = Date.now();
      await seedTable(fixture.storage, ref, generateRecords(size));
      fixture.db.exec('ANALYZE');
      config.log(`growth: seeded ${label(size)} records in ${Date.now() - t0} ms`);
      const schema = await fixture.storage.getSchema(ref);
      if (!schema) throw new Error('[bench] Bench table missing after seeding');
      for (const workload of storageWorkloads({ storage: fixture.storage, db: fixture.db, ref, schema, size })) {
        config.log(`growth: ${workload.name} @ ${label(size)}`);
        const result = await compare(config, workload.ours, workload.raw);
        const list = results.get(workload.name) ?? [];
        list.push({ size, result });
        results.set(workload.name, list);
      }
    } finally {
      await fixture.close();
    }
  }
  const rows: ResultRow[] = [];
  for (const [name, list] of results) {
    const first = list[0]!;
    const last = list[list.length - 1]!;
    const ratio = last.result.ours / first.result.ours;
    const rawRatio = last.result.reference / first.result.reference;
    rows.push({
      group: 'growth',
      workload: `${name} (${label(first.size)} -> ${label(last.size)})`,
      unit: 'ops/s',
      ours: last.result.ours,
      referenceName: `ours @ ${label(first.size)}`,
      reference: first.result.ours,
      ratio,
      target: GROWTH_TARGET,
      pass: ratio >= GROWTH_TARGET,
      detail: {
        perSize: list.map(({ size, result }) => ({
          records: size,
          ours: Math.round(result.ours),
          raw: Math.round(result.reference),
          oursOverRaw: round3(result.ratio),
        })),
        rawGrowth: round3(rawRatio),
      },
      note: `per size (ours/raw ops/s): ${list.map(({ size, result }) => `${label(size)} ${Math.round(result.ours)}/${Math.round(result.reference)}`).join(', ')}; raw grew ${rawRatio.toFixed(2)}x`,
    });
  }
  return rows;
}
