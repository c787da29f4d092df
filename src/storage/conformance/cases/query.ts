import { expect } from 'vitest';
import type { StoredRecord } from '../../../core/values.js';
import { type EvalEnv, runAggregate, runCount, runFind } from '../../../query/evaluate/index.js';
import type { TableSchema } from '../../../query/plan.js';
import type { StorageAdapter } from '../../port.js';
import type { Harness } from '../harness.js';
import { type QueryData, queryData } from './query-data.js';
import { AGGREGATE_CASES, COUNT_CASES, FIND_CASES } from './query-plans.js';

/** Seeds the data set through the port and returns the reference environment for `className`. */
async function seed(adapter: StorageAdapter, namespace: string, data: QueryData): Promise<(className: string) => EvalEnv> {
  const schemas = new Map<string, TableSchema>();
  for (const table of data.tables) {
    const ref = { namespace, className: table.className };
    schemas.set(table.className, await adapter.ensureColumns(ref, table.columns));
    for (const record of table.records) await adapter.insert(ref, record);
  }
  for (const [owner, ids] of data.likes) {
    const op = { kind: 'add_relation', column: 'likes', targetClass: 'Player', ids } as const;
    await adapter.update({ namespace, className: 'Post' }, owner, [op], data.tables[2]!.records.find((r) => r.objectId === owner)!.updatedAt);
  }
  const records = new Map<string, StoredRecord[]>(data.tables.map((t) => [t.className, t.records]));
  return (className) => ({
    className,
    records: (name) => records.get(name) ?? [],
    relationMembers: (name, objectId, column) => new Set(name === 'Post' && column === 'likes' ? data.likes.get(objectId) ?? [] : []),
    schema: (name) => schemas.get(name) ?? null,
  });
}

/**
 * The query suite: every find, count and statistics plan returns exactly what the reference
 * evaluator returns over the same data, in the same order.
 */
export function queryCases(h: Harness): void {
  const data = queryData();
  const recordsOf = (className: string) => data.tables.find((t) => t.className === className)!.records;

  for (const { name, className = 'Score', plan } of FIND_CASES) {
    h.test(`query: find, ${name}`, async () => {
      const env = await seed(h.adapter(), h.ref().namespace, data);
      const expected = runFind(recordsOf(className), plan, env(className));
      expect(await h.adapter().find(h.ref(className), plan)).toEqual(expected);
    });
  }

  h.test('query: count', async () => {
    const env = await seed(h.adapter(), h.ref().namespace, data);
    for (const { name, where } of COUNT_CASES) {
      expect(await h.adapter().count(h.ref('Score'), where), name).toBe(runCount(recordsOf('Score'), where, env('Score')));
    }
  });

  for (const { name, plan } of AGGREGATE_CASES) {
    h.test(`query: statistics, ${name}`, async () => {
      const env = await seed(h.adapter(), h.ref().namespace, data);
      const expected = runAggregate(recordsOf('Score'), plan, env('Score'));
      expect(await h.adapter().aggregate(h.ref('Score'), plan)).toEqual(expected);
    });
  }

  h.test('query: a table that does not exist finds, counts and aggregates nothing', async () => {
    const ref = h.ref('Missing');
    expect(await h.adapter().find(ref, FIND_CASES[0]!.plan)).toEqual([]);
    expect(await h.adapter().count(ref, { kind: 'all_records' })).toBe(0);
  });
}
