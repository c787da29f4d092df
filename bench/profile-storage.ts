/**
 * Profiling aid (not part of `npm run bench`): runs one storage workload's "ours" side in a loop so
 * `node --cpu-prof` shows where the time goes.
 *
 * @example node --import tsx --cpu-prof --cpu-prof-dir=/tmp/prof bench/profile-storage.ts "get by objectId" 3000
 */
import { NAMESPACE, makeRecords } from './data.js';
import { opsPerSecond } from './harness.js';
import { storageWorkloads } from './storage-workloads.js';
import { benchRef, openSqliteFixture, seedTable } from './stores.js';
import { BENCH_COLUMNS } from './data.js';

const name = process.argv[2] ?? 'get by objectId';
const ms = Math.min(60_000, Number(process.argv[3] ?? 3000));
const side = process.argv[4] === 'raw' ? 'raw' : 'ours';
const size = 100_000;
const fixture = await openSqliteFixture('profile');
try {
  const ref = benchRef(NAMESPACE);
  const writeRef = { namespace: NAMESPACE, className: 'BenchInsert' };
  await seedTable(fixture.storage, ref, makeRecords(size));
  await fixture.storage.ensureColumns(writeRef, BENCH_COLUMNS);
  const schema = (await fixture.storage.getSchema(ref))!;
  const workload = storageWorkloads({ storage: fixture.storage, db: fixture.db, ref, schema, size, writeRef }).find((w) => w.name === name);
  if (!workload) throw new Error(`no workload '${name}'`);
  const ops = await opsPerSecond(workload[side], ms, 100_000_000);
  process.stdout.write(`${name} (${side}): ${Math.round(ops)} ops/s\n`);
} finally {
  await fixture.close();
}
