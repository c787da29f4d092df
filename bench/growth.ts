/**
 * Group 6: growth. The storage reads of group 1 on tables of 10k, 100k and 1M records (quick: 1k
 * and 10k), each query shaped to match the same number of records at every size (one id, ~100 per
 * category, score ranges holding ~1000 records, the first 100 of a range). Indexed reads should
 * then cost about the same at every size: the B-tree gets a level or two deeper, nothing more.
 *
 * All sizes are open at once and measured in interleaved rounds (ours and raw better-sqlite3 at
 * every size), so a slowdown of the physical engine (a table outgrowing the page cache) is told
 * apart from one of ours. The row's ratio is ours at the largest size over ours at the smallest
 * (median of per-round ratios); target: at least 0.5. A second row per read holds ours against raw
 * better-sqlite3 at the largest size; target: at least 0.7 (issue 37). Besides the storage group's indexes, the tables
 * carry the covering index (score, level) a statistics query grouped by level over a score range should
 * have (docs/querying.md).
 */
import { NAMESPACE, generateRecords } from './data.js';
import { type BenchConfig, type Op, interleave, median, round3 } from './harness.js';
import type { ResultRow } from './report.js';
import { type StorageWorkload, storageWorkloads } from './storage-workloads.js';
import { type SqliteFixture, benchRef, openSqliteFixture, seedTable } from './stores.js';

export const GROWTH_TARGET = 0.5;
/** Ours over raw better-sqlite3 at the largest size, on every read row (issue 37). */
export const AT_SIZE_TARGET = 0.7;

function label(size: number): string {
  return size >= 1_000_000 ? `${size / 1_000_000}M` : `${size / 1000}k`;
}

/** Median over rounds of a[r] / b[r]. */
function pairedRatio(a: readonly number[], b: readonly number[]): number {
  return median(a.map((x, r) => x / b[r]!));
}

export async function run(config: BenchConfig): Promise<ResultRow[]> {
  const sizes = config.quick ? [1_000, 10_000] : [10_000, 100_000, 1_000_000];
  const fixtures: SqliteFixture[] = [];
  try {
    const perSize: StorageWorkload[][] = [];
    for (const size of sizes) {
      const fixture = await openSqliteFixture(`growth-${label(size)}`);
      fixtures.push(fixture);
      const ref = benchRef(NAMESPACE);
      const t0 = Date.now();
      await seedTable(fixture.storage, ref, generateRecords(size));
      // The covering index docs/querying.md recommends for a statistics query (its where column, then
      // its group and sum columns): the groupby row then reads the index only, at every size.
      await fixture.storage.createIndex(ref, { name: 'score_level', columns: ['score', 'level'], unique: false });
      fixture.db.exec('ANALYZE');
      config.log(`growth: seeded ${label(size)} records in ${Date.now() - t0} ms`);
      const schema = await fixture.storage.getSchema(ref);
      if (!schema) throw new Error('[bench] Bench table missing after seeding');
      perSize.push(storageWorkloads({ storage: fixture.storage, db: fixture.db, ref, schema, size }));
    }
    const rows: ResultRow[] = [];
    for (let w = 0; w < perSize[0]!.length; w++) {
      const name = perSize[0]![w]!.name;
      config.log(`growth: ${name} at ${sizes.map(label).join(', ')}`);
      const ops: Op[] = [...perSize.map((list) => list[w]!.ours), ...perSize.map((list) => list[w]!.raw)];
      const rates = interleave(config, ops);
      const ours = (await rates).slice(0, sizes.length);
      const raw = (await rates).slice(sizes.length);
      const last = sizes.length - 1;
      const ratio = pairedRatio(ours[last]!, ours[0]!);
      const rawRatio = pairedRatio(raw[last]!, raw[0]!);
      const perSizeDetail = sizes.map((size, i) => ({
        records: size,
        ours: Math.round(median(ours[i]!)),
        raw: Math.round(median(raw[i]!)),
        oursOverRaw: round3(pairedRatio(ours[i]!, raw[i]!)),
      }));
      rows.push({
        group: 'growth',
        workload: `${name} (${label(sizes[0]!)} -> ${label(sizes[last]!)})`,
        unit: 'ops/s',
        ours: median(ours[last]!),
        referenceName: `ours @ ${label(sizes[0]!)}`,
        reference: median(ours[0]!),
        ratio,
        target: GROWTH_TARGET,
        pass: ratio >= GROWTH_TARGET,
        detail: { perSize: perSizeDetail, rawGrowth: round3(rawRatio) },
        note:
          `ours/raw ops/s: ${perSizeDetail.map((p) => `${label(p.records)} ${p.ours}/${p.raw}`).join(', ')}; ` +
          `raw grew ${rawRatio.toFixed(2)}x`,
      });
      // Issue 37: at the largest size, ours against raw better-sqlite3 on the same table and connection.
      const largest = pairedRatio(ours[last]!, raw[last]!);
      rows.push({
        group: 'growth',
        workload: `${name} @ ${label(sizes[last]!)} vs raw`,
        unit: 'ops/s',
        ours: median(ours[last]!),
        referenceName: `raw better-sqlite3 @ ${label(sizes[last]!)}`,
        reference: median(raw[last]!),
        ratio: largest,
        target: AT_SIZE_TARGET,
        pass: largest >= AT_SIZE_TARGET,
      });
    }
    return rows;
  } finally {
    for (const fixture of fixtures) await fixture.close();
  }
}
