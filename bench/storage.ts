/**
 * Group 1: the SQLite storage adapter against raw better-sqlite3 (the physical limit of the
 * embedded default) on a 100k-record table (10k in quick mode). Targets: reads within 1.3x of raw
 * (ratio >= 0.77), writes within 1.5x (>= 0.67).
 */
import type { TableRef } from '../src/storage/port.js';
import { BENCH_COLUMNS, BENCH_INDEXES, NAMESPACE, generateRecords } from './data.js';
import { type BenchConfig, compare } from './harness.js';
import { type ResultRow, comparisonRow } from './report.js';
import { describeSql, storageWorkloads } from './storage-workloads.js';
import { benchRef, openSqliteFixture, seedTable } from './stores.js';

export const READ_TARGET = 0.77;
export const WRITE_TARGET = 0.67;

export async function run(config: BenchConfig): Promise<ResultRow[]> {
  const size = config.quick ? 10_000 : 100_000;
  const fixture = await openSqliteFixture('storage');
  try {
    const ref = benchRef(NAMESPACE);
    const writeRef: TableRef = { namespace: NAMESPACE, className: 'BenchInsert' };
    const t0 = Date.now();
    await seedTable(fixture.storage, ref, generateRecords(size));
    await fixture.storage.ensureColumns(writeRef, BENCH_COLUMNS);
    for (const index of BENCH_INDEXES) await fixture.storage.createIndex(writeRef, { name: index.name, columns: [...index.columns], unique: false });
    fixture.db.exec('ANALYZE');
    config.log(`storage: seeded ${size} records in ${Date.now() - t0} ms`);
    const schema = await fixture.storage.getSchema(ref);
    if (!schema) throw new Error('[bench] Bench table missing after seeding');
    const workloads = storageWorkloads({ storage: fixture.storage, db: fixture.db, ref, schema, size, writeRef });
    const rows: ResultRow[] = [];
    for (const workload of workloads) {
      config.log(`storage: ${workload.name}`);
      const mismatch = workload.check ? await workload.check() : null;
      // Reads are pure CPU work: rates per CPU second resist neighbours' load. Writes wait on the
      // disk (WAL appends, checkpoints), which is part of their cost: wall-clock time.
      const clock = workload.kind === 'read' ? 'cpu' : 'wall';
      const result = await compare(config, workload.ours, workload.raw, { clock });
      const target = workload.kind === 'read' ? READ_TARGET : WRITE_TARGET;
      rows.push(
        comparisonRow('storage', workload.name, 'raw better-sqlite3', result, target, {
          detail: { records: size, clock, ...describeSql(fixture.db, workload), ...(mismatch ? { mismatch } : {}) },
          ...(mismatch ? { note: `results differ from raw: ${mismatch}` } : {}),
        }),
      );
    }
    return rows;
  } finally {
    await fixture.close();
  }
}
