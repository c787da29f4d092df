/**
 * The storage workloads on PostgreSQL: the `svcbase/postgres` adapter against the raw driver
 * (porsager `postgres`, prepared `unsafe` queries) running the very statements the adapter runs
 * (compiled once by the same compilers, same rows, same order), one operation in flight. The
 * adapter's extra work is what the ratio shows: schema lookup, plan compilation, parameter
 * encoding and decoding rows into records. Targets: reads >= 0.8x, writes >= 0.7x.
 *
 * A last row serves `GET /1/classes/GameScore?where=...&limit=20` over HTTP from a service on
 * PostgreSQL and from one on SQLite (same rows, both servers in this process, autocannon here too,
 * interleaved rounds): REST req/s on PostgreSQL beside SQLite, informational.
 *
 * Rates are wall-clock (the work happens in the PostgreSQL server, on the same machine). Needs
 * PostgreSQL at SVCBASE_BENCH_POSTGRES (default postgres://postgres@127.0.0.1:5432/test); without it
 * the group reports a skipped row. The group works in its own schema, dropped after.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import postgres from 'postgres';
import { createService } from '../src/service.js';
import { toNodeListener } from '../src/node.js';
import { openSqlite } from '../src/storage/sqlite/index.js';
import type { StorageAdapter } from '../src/storage/port.js';
import type { StoredRecord } from '../src/core/values.js';
import { dateValue } from '../src/core/values.js';
import { parseListQuery } from '../src/query/parse.js';
import { DEFAULT_QUERY_LIMITS } from '../src/query/query-limits.js';
import { compileFind, compileInsert, compileSelectById, compileUpdate, physicalColumnNames, postgresDialect } from '../src/query/sql/index.js';
import { physicalTableName } from '../src/query/sql/layout.js';
import { postgresStorage } from '../src/postgres.js';
import { type BenchConfig, compare, median, prng, round3, spread } from './harness.js';
import { type ResultRow, comparisonRow, packageVersion, skippedRow } from './report.js';

const URL = process.env.SVCBASE_BENCH_POSTGRES ?? 'postgres://postgres@127.0.0.1:5432/test';
const ROWS = 2000;
const NS = 'bench';
const REF = { namespace: NS, className: 'GameScore' };
const COLUMNS = { playerName: { type: 'String' }, score: { type: 'Number' }, cheatMode: { type: 'Boolean' }, tags: { type: 'Array' } } as const;

export async function run(config: BenchConfig): Promise<ResultRow[]> {
  const schema = `svc_bench_${randomBytes(4).toString('hex')}`;
  const admin = postgres(URL, { max: 1, connect_timeout: 2, onnotice: () => {} });
  try {
    await admin.unsafe(`CREATE SCHEMA "${schema}"`);
  } catch (error) {
    await admin.end({ timeout: 1 }).catch(() => {});
    return [skippedRow('postgres', 'PostgreSQL storage', `PostgreSQL at ${URL} unreachable (${error instanceof Error ? error.message : String(error)})`)];
  }
  const sql = postgres(URL, { max: 4, onnotice: () => {}, connection: { search_path: schema, jit: 'off' } });
  const rows: ResultRow[] = [];
  try {
    const adapter = postgresStorage({ sql });
    await adapter.ensureColumns(REF, COLUMNS);
    const random = prng(5);
    const ids: string[] = [];
    for (let i = 0; i < ROWS; i++) {
      const at = dateValue(Date.UTC(2026, 0, 1) + i);
      const record = { objectId: `g${String(i).padStart(7, '0')}`, createdAt: at, updatedAt: at, playerName: `p${i % 97}`, score: Math.floor(random() * 10_000), cheatMode: i % 3 === 0, tags: ['a', `t${i % 7}`] } as StoredRecord;
      await adapter.insert(REF, record);
      ids.push(record.objectId);
    }
    const tableSchema = (await adapter.getSchema(REF))!;
    const table = physicalTableName(NS, 'GameScore');
    const pick = prng(9);
    const id = () => ids[Math.floor(pick() * ids.length)]!;
    const raw = (text: string, params: unknown[]) => sql.unsafe(text, params as never[], { prepare: true });
    const version = (await sql`SHOW server_version`)[0]!.server_version as string;
    const detail = { rows: ROWS, server: version, driver: `postgres ${packageVersion('postgres')}` };
    const row = (workload: string, target: number, result: Awaited<ReturnType<typeof compare>>, note: string) =>
      rows.push(comparisonRow('postgres', workload, 'raw driver, same statements', result, target, { detail, note }));

    config.log('postgres: get by id');
    const byId = compileSelectById(postgresDialect, table, '', physicalColumnNames(tableSchema));
    row('get by id (adapter.get vs SELECT by id)', 0.8, await compare(config, () => adapter.get(REF, id()), () => raw(byId.sql, [id()]).values(), { clock: 'wall' }), 'reads: the adapter decodes the row into a record');

    config.log('postgres: find');
    const where = JSON.stringify({ score: { $gte: 5000 }, cheatMode: false });
    const plan = parseListQuery(new URLSearchParams({ where, order: '-score', limit: '20' }), {
      className: 'GameScore',
      schema: () => tableSchema,
      settings: { timeZone: 'UTC', features: { regex: true }, query: DEFAULT_QUERY_LIMITS },
    });
    if (plan.kind !== 'find') throw new Error('expected a find');
    const findSql = compileFind('GameScore', plan.plan, { namespace: NS, schema: () => tableSchema }, postgresDialect);
    row('find, where + order, 20 rows', 0.8, await compare(config, () => adapter.find(REF, plan.plan), () => raw(findSql.sql, [...findSql.parameters]).values(), { clock: 'wall' }), 'reads: plan compiled per call by the adapter, once for the raw side');

    config.log('postgres: insert');
    let n = 0;
    const insertRecord = (): StoredRecord => {
      const at = dateValue(Date.UTC(2026, 1, 1) + ++n);
      return { objectId: `i${n}`, createdAt: at, updatedAt: at, playerName: 'new', score: n, cheatMode: false } as StoredRecord;
    };
    const insertCols = ['objectId', 'createdAt', 'updatedAt', 'playerName', 'score', 'cheatMode'];
    const insertSql = compileInsert(postgresDialect, table, insertCols, insertCols.map(() => null)).sql;
    row(
      'insert',
      0.7,
      await compare(
        config,
        () => adapter.insert(REF, insertRecord()),
        () => {
          const at = Date.UTC(2026, 1, 1) + ++n;
          return raw(insertSql, [`i${n}`, at, at, 'new', n, false]);
        },
        { clock: 'wall' },
      ),
      'writes',
    );

    config.log('postgres: increment');
    const later = dateValue(Date.UTC(2026, 2, 1));
    const incrementSql = compileUpdate(postgresDialect, table, [{ kind: 'increment', column: 'score', amount: 1 }], '', Date.UTC(2026, 2, 1)).sql;
    row(
      'update: Increment (UPDATE ... RETURNING)',
      0.7,
      await compare(
        config,
        () => adapter.update(REF, id(), [{ kind: 'increment', column: 'score', path: [], amount: 1 }], later),
        () => raw(incrementSql, [1, Date.UTC(2026, 2, 1), id()]),
        { clock: 'wall' },
      ),
      'writes: the adapter decodes the returned row into a record',
    );
    await adapter.close();
    rows.push(await restRow(config, sql, ids.length));
  } finally {
    await sql.end({ timeout: 2 });
    await admin.unsafe(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end({ timeout: 2 });
  }
  return rows;
}

const REST_APP = { applicationId: 'bench-app', restApiKey: 'bench-rest', masterKey: 'bench-master', secretKey: 'bench-secret-01', securityCode: 'bench-code' };

async function serve(storage: StorageAdapter): Promise<{ port: number; close: () => Promise<void> }> {
  const service = createService({ storage, applications: [REST_APP] });
  const server: Server = createServer(toNodeListener(service));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await service.close();
    },
  };
}

/** REST list requests per second with the service on PostgreSQL, beside the same on SQLite. */
async function restRow(config: BenchConfig, sql: postgres.Sql, count: number): Promise<ResultRow> {
  config.log('postgres: REST list over PostgreSQL vs SQLite');
  const sides: Array<{ port: number; close: () => Promise<void> }> = [];
  try {
    for (const storage of [postgresStorage({ sql }), openSqlite(':memory:')]) {
      const side = await serve(storage);
      sides.push(side);
      const headers = { 'X-Svc-Application-Id': REST_APP.applicationId, 'X-Svc-REST-API-Key': REST_APP.restApiKey, 'content-type': 'application/json' };
      // The same rows through the REST API on both sides (a fresh class of this application).
      for (let i = 0; i < Math.min(count, 500); i++) {
        await fetch(`http://127.0.0.1:${side.port}/1/classes/Score`, { method: 'POST', headers, body: JSON.stringify({ score: i % 100, name: `p${i % 17}` }) });
      }
    }
    const path = `/1/classes/Score?where=${encodeURIComponent(JSON.stringify({ score: { $gte: 50 } }))}&order=-score&limit=20`;
    const shoot = async (port: number, seconds: number) => {
      const result = await autocannon({
        url: `http://127.0.0.1:${port}${path}`,
        connections: 10,
        duration: seconds,
        headers: { 'X-Svc-Application-Id': REST_APP.applicationId, 'X-Svc-REST-API-Key': REST_APP.restApiKey },
      });
      if (result.non2xx + result.errors > 0) throw new Error(`REST bench: ${result.non2xx + result.errors} failed requests`);
      return result.requests.total / result.duration;
    };
    const pgRounds: number[] = [];
    const sqliteRounds: number[] = [];
    const seconds = config.quick ? 0.5 : 1.5;
    for (let round = 0; round < (config.quick ? 2 : 7); round++) {
      pgRounds.push(await shoot(sides[0]!.port, seconds));
      sqliteRounds.push(await shoot(sides[1]!.port, seconds));
    }
    const ours = median(pgRounds);
    const reference = median(sqliteRounds);
    return {
      group: 'postgres',
      workload: 'REST GET list (where + order, 20 of 500 rows), 10 connections: PostgreSQL vs SQLite',
      unit: 'req/s',
      ours: round3(ours),
      referenceName: 'same service on SQLite (:memory:)',
      reference: round3(reference),
      ratio: round3(ours / reference),
      target: null,
      pass: null,
      note: `informational; both servers and autocannon in one process; spread pg ${round3(spread(pgRounds))}, sqlite ${round3(spread(sqliteRounds))}`,
    } as ResultRow;
  } finally {
    for (const side of sides) await side.close();
  }
}
