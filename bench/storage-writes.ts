import type Database from 'better-sqlite3';
import type { StoredRecord } from '../src/core/values.js';
import { dateValue } from '../src/core/values.js';
import { physicalTableName } from '../src/query/sql/layout.js';
import type { FieldOp, StorageAdapter, TableRef } from '../src/storage/port.js';
import { BENCH_COLUMNS, START_MS, objectIdOf } from './data.js';
import type { StorageWorkload } from './storage-workloads.js';

/**
 * The write workloads: Increment on one record of `ref` (ours: `update` with an increment op, which
 * returns the updated record; raw: `UPDATE ... RETURNING *`) and batches of 50 inserts into
 * `writeRef` in one transaction (ours: `transaction()` + `insert`; raw: better-sqlite3's
 * `db.transaction` over a prepared INSERT).
 */
export function writeWorkloads(options: {
  storage: StorageAdapter;
  db: Database.Database;
  ref: TableRef;
  writeRef: TableRef;
  ids: readonly string[];
}): StorageWorkload[] {
  const { storage, db, ref, writeRef, ids } = options;
  const table = `"${physicalTableName(ref.namespace, ref.className)}"`;
  const writeTable = `"${physicalTableName(writeRef.namespace, writeRef.className)}"`;
  let clock = START_MS + 10 ** 9;
  let u = 0;
  const rawIncrement = db.prepare(`UPDATE ${table} SET score = COALESCE(score, 0) + ?, updatedAt = ? WHERE objectId = ? RETURNING *`);

  // Inserts: both sides share one id counter so ids never collide.
  let next = 50_000_000;
  const template = {
    name: 'inserted',
    category: 'c1',
    score: 4242,
    level: 3,
    active: true,
    tags: ['t1', 't2'],
    address: { city: 'city1', zip: '10001' },
  };
  const columns = ['objectId', 'createdAt', 'updatedAt', ...Object.keys(template)];
  for (const column of Object.keys(template)) if (!BENCH_COLUMNS[column]) throw new Error(`[bench] unknown column ${column}`);
  const rawInsert = db.prepare(`INSERT INTO ${writeTable} (${columns.map((c) => `"${c}"`).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`);
  const rawBatch = db.transaction((from: number, at: number) => {
    for (let k = 0; k < 50; k++) {
      rawInsert.run(
        objectIdOf(from + k),
        at,
        at,
        template.name,
        template.category,
        template.score,
        template.level,
        template.active ? 1 : 0,
        JSON.stringify(template.tags),
        JSON.stringify(template.address),
      );
    }
  });
  const oursBatch = (from: number, at: number): Promise<void> =>
    storage.transaction(async (tx) => {
      const created = dateValue(at);
      for (let k = 0; k < 50; k++) {
        const record = { ...template, objectId: objectIdOf(from + k), createdAt: created, updatedAt: created } as StoredRecord;
        await tx.insert(writeRef, record);
      }
    });

  const increment = (): FieldOp[] => [{ kind: 'increment', column: 'score', path: [], amount: 1 }];
  const op = increment();
  return [
    {
      name: 'Increment one record',
      kind: 'write',
      ours: () => storage.update(ref, ids[u++ & 4095]!, op, dateValue(++clock)),
      raw: () => rawIncrement.get(1, ++clock, ids[u++ & 4095]!),
    },
    {
      name: 'batch of 50 inserts, one transaction',
      kind: 'write',
      ours: () => {
        const from = next;
        next += 50;
        return oursBatch(from, ++clock);
      },
      raw: () => {
        const from = next;
        next += 50;
        rawBatch(from, ++clock);
      },
    },
  ];
}
