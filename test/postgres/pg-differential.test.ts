import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredRecord } from '../../src/core/values.js';
import { parseListQuery } from '../../src/query/parse.js';
import type { StorageAdapter } from '../../src/storage/port.js';
import { postgresStorage } from '../../src/storage/postgres/index.js';
import { dataSets, findParams, statsParams, timeZones } from '../query/helpers/arbitraries.js';
import { Fixture, type TableData, normalize } from '../query/helpers/fixture.js';
import { SETTINGS } from '../query/helpers/context.js';
import { type TestSchema, createTestSchema, postgresAvailable } from './pg-test-db.js';

/**
 * The differential test with PostgreSQL as a third side: for the same random data and random wire
 * queries (the generators of test/query/differential.test.ts: every type, mismatches, $regex,
 * $nearSphere, $within, $inQuery, $relatedTo, statistics), the memory evaluator, SQLite and the
 * PostgreSQL adapter return identical rows in identical order. Fixed seed; PG_FC_RUNS raises the
 * run count (each run loads the data through the adapter port, then checks 5 queries).
 */
const RUNS = Number(process.env.PG_FC_RUNS ?? 40);
const SEED = Number(process.env.FC_SEED ?? 20240601);
const available = await postgresAvailable('pg-differential');

async function load(adapter: StorageAdapter, namespace: string, tables: readonly TableData[]): Promise<void> {
  for (const table of tables) {
    const ref = { namespace, className: table.schema.className };
    await adapter.ensureColumns(ref, table.schema.columns);
    for (const record of table.records) await adapter.insert(ref, record);
  }
  for (const table of tables) {
    const ref = { namespace, className: table.schema.className };
    for (const [column, owners] of Object.entries(table.relations ?? {})) {
      const targetClass = table.schema.columns[column]!.targetClass!;
      for (const [owner, ids] of Object.entries(owners)) {
        if (ids.length === 0) continue;
        const record = table.records.find((r) => r.objectId === owner)!;
        await adapter.update(ref, owner, [{ kind: 'add_relation', column, targetClass, ids }], record.updatedAt);
      }
    }
  }
}

describe.skipIf(!available)('differential: memory evaluator vs SQLite vs PostgreSQL', () => {
  let schema: TestSchema;
  let adapter: StorageAdapter;
  beforeAll(async () => {
    schema = await createTestSchema('svc_diff');
    adapter = postgresStorage({ sql: schema.client({ max: 4 }) });
  });
  afterAll(async () => {
    await adapter?.close();
    await schema?.drop();
  });

  it(`agrees on ${RUNS} random data sets × 5 random queries`, async () => {
    let run = 0;
    let checked = 0;
    await fc.assert(
      fc.asyncProperty(dataSets, fc.array(findParams, { minLength: 3, maxLength: 3 }), findParams, statsParams, timeZones, async (tables, finds, countQuery, stats, timeZone) => {
        const namespace = `d${++run}`;
        const fixture = new Fixture(tables);
        try {
          await load(adapter, namespace, tables);
          const ref = { namespace, className: 'T' };
          const ctx = { className: 'T', schema: (c: string) => fixture.schema(c), settings: { ...SETTINGS, timeZone } };
          for (const params of finds) {
            const q = parseListQuery(new URLSearchParams(params), ctx);
            if (q.kind !== 'find') throw new Error('expected a find');
            const memory = fixture.memoryFind('T', q.plan);
            const pg = (await adapter.find(ref, q.plan)).map((r: StoredRecord) => normalize(r));
            expect(pg, `find ${JSON.stringify(params)}`).toEqual(memory);
            expect(fixture.sqlFind('T', q.plan)).toEqual(memory);
            checked++;
          }
          const c = parseListQuery(new URLSearchParams({ ...countQuery, count: '1', limit: '0' }), ctx);
          if (c.kind !== 'count') throw new Error('expected a count');
          const memoryCount = fixture.memoryCount('T', c.where);
          expect(await adapter.count(ref, c.where), `count ${JSON.stringify(countQuery)}`).toBe(memoryCount);
          expect(fixture.sqlCount('T', c.where)).toBe(memoryCount);
          checked++;
          const a = parseListQuery(new URLSearchParams(stats), ctx);
          if (a.kind !== 'aggregate') throw new Error('expected statistics');
          const memoryRows = fixture.memoryAggregate('T', a.plan);
          expect(await adapter.aggregate(ref, a.plan), `statistics ${JSON.stringify(stats)}`).toEqual(memoryRows);
          expect(fixture.sqlAggregate('T', a.plan)).toEqual(memoryRows);
          checked++;
        } finally {
          fixture.close();
          await adapter.dropNamespace(namespace);
        }
      }),
      // No shrinking: each step would reload the data on the server; the first failure is reported as found.
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
    expect(checked).toBeGreaterThanOrEqual(RUNS * 5);
  }, 300_000);
});
