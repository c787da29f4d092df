/**
 * Profiling aid (not part of `npm run bench`): times the pieces of the SQLite adapter's read and
 * write paths one by one on a seeded table, to explain the storage rows of docs/performance.md.
 *
 * @example npx tsx bench/profile-splits.ts
 */
import { dateValue } from '../src/core/values.js';
import { DEFAULT_SETTINGS } from '../src/app/application.js';
import { parseListQuery } from '../src/query/parse.js';
import { compileFind, compileCount, sqliteDialect } from '../src/query/sql/index.js';
import { physicalTableName } from '../src/query/sql/layout.js';
import { quoteIdent } from '../src/storage/sqlite/identifiers.js';
import { decodeRow, encodeRecord } from '../src/storage/sqlite/row-codec.js';
import { StatementCache } from '../src/storage/sqlite/statement-cache.js';
import { projectRecord } from '../src/storage/kit/projection.js';
import { NAMESPACE, makeRecords, objectIdOf } from './data.js';
import { opsPerSecond } from './harness.js';
import { benchRef, openSqliteFixture, seedTable } from './stores.js';

const fixture = await openSqliteFixture('splits');
const ms = 600;
const line = async (label: string, op: () => unknown) => {
  const ops = await opsPerSecond(op, ms, 1e8);
  process.stdout.write(`${label.padEnd(58)} ${(1e6 / ops).toFixed(3).padStart(9)} us/op\n`);
};
try {
  const size = 100_000;
  const ref = benchRef(NAMESPACE);
  const records = makeRecords(size);
  await seedTable(fixture.storage, ref, records);
  const schema = (await fixture.storage.getSchema(ref))!;
  const table = `"${physicalTableName(ref.namespace, ref.className)}"`;
  const db = fixture.db;
  const ids = Array.from({ length: 4096 }, (_, i) => objectIdOf((i * 7919) % size));
  let k = 0;
  const rawGet = db.prepare(`SELECT * FROM ${table} WHERE objectId = ?`);
  const rows = ids.map((id) => rawGet.get(id) as Record<string, unknown>);
  const cache = new StatementCache(db as never);
  const sql = `SELECT * FROM ${table} WHERE "objectId" = ?`;
  for (let i = 0; i < 50; i++) cache.get(`SELECT ${i}`);

  process.stdout.write('get by objectId\n');
  await line('raw stmt.get(id)', () => rawGet.get(ids[k++ & 4095]!));
  await line('adapter get(ref, id)', () => fixture.storage.get(ref, ids[k++ & 4095]!));
  await line('  statement cache get(sql) (LRU: Map delete + set)', () => cache.get(sql));
  await line('  quoteIdent(physicalTableName(ref)) + SQL template', () => `SELECT * FROM ${quoteIdent(physicalTableName(ref.namespace, ref.className))} WHERE "objectId" = ?`);
  await line('  decodeRow(schema, row)', () => decodeRow(schema, rows[k++ & 4095]!));
  await line('    dateValue(ms) x2 (new Date(ms).toISOString())', () => [dateValue(1735689600000 + k++), dateValue(1735689600000 + k)]);
  await line('    JSON.parse(tags) + JSON.parse(address)', () => [JSON.parse(rows[k & 4095]!.tags as string), JSON.parse(rows[k++ & 4095]!.address as string)]);
  await line('  projectRecord(record, undefined)', () => projectRecord(records[k++ & 4095]!, undefined));

  process.stdout.write('find: equality on category, limit 100\n');
  const ctx = { className: ref.className, schema: () => schema, settings: DEFAULT_SETTINGS };
  const q = parseListQuery(new URLSearchParams(`where=${encodeURIComponent('{"category":"c7"}')}&limit=100`), ctx);
  if (q.kind !== 'find') throw new Error('find expected');
  const view = { namespace: ref.namespace, schema: () => schema };
  const compiled = compileFind(ref.className, q.plan, view, sqliteDialect);
  const stmt = db.prepare(compiled.sql);
  const found = stmt.all(...compiled.parameters) as Array<Record<string, unknown>>;
  await line('raw-equivalent: compiled SQL stmt.all (no decode)', () => stmt.all(...compiled.parameters));
  await line('adapter find(ref, plan)', () => fixture.storage.find(ref, q.plan));
  await line('  compileFind(plan) (per call)', () => compileFind(ref.className, q.plan, view, sqliteDialect));
  await line(`  decodeRow x${found.length} rows`, () => found.map((r) => decodeRow(schema, r)));
  await line('  compiled SQL stmt.all + decodeRow each row', () => (stmt.all(...compiled.parameters) as Array<Record<string, unknown>>).map((r) => decodeRow(schema, r)));
  const cq = parseListQuery(new URLSearchParams(`where=${encodeURIComponent('{"score":{"$gte":1000,"$lt":11000}}')}&count=1&limit=0`), ctx);
  if (cq.kind === 'count') await line('  compileCount(where) (per call)', () => compileCount(ref.className, cq.where, view, sqliteDialect));

  process.stdout.write('Increment one record\n');
  let clock = 1_800_000_000_000;
  const rawInc = db.prepare(`UPDATE ${table} SET score = COALESCE(score, 0) + ?, updatedAt = ? WHERE objectId = ? RETURNING *`);
  const oursIncSql = `UPDATE ${table} SET "score" = COALESCE("score", 0) + ?, "updatedAt" = ? WHERE "objectId" = ? RETURNING *`;
  const op = [{ kind: 'increment' as const, column: 'score', path: [] as string[], amount: 1 }];
  await line('raw UPDATE ... RETURNING *', () => rawInc.get(1, ++clock, ids[k++ & 4095]!));
  await line('adapter update(ref, id, [increment])', () => fixture.storage.update(ref, ids[k++ & 4095]!, op, dateValue(++clock)));
  await line('  same SQL via statement cache, no decode', () => cache.get(oursIncSql).get(1, ++clock, ids[k++ & 4095]!));
  await line('raw UPDATE ... RETURNING * (again, after the others)', () => rawInc.get(1, ++clock, ids[k++ & 4095]!));
  await line('  dateValue(now) (caller) + dateMs(updatedAt) (adapter)', () => Date.parse(dateValue(++clock).iso));

  process.stdout.write('insert\n');
  await line('  encodeRecord(schema, record)', () => encodeRecord(schema, records[k++ & 4095]!));
} finally {
  await fixture.close();
}
