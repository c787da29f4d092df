import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { ColumnSchema, TableSchema } from '../../src/query/plan.js';
import {
  compileCreateBookkeeping,
  compileDeleteNamespaceRows,
  compileInsertIndexRow,
  compileInsertSchemaRow,
  compileSelectIndexRows,
  compileSelectNamespaceRows,
  compileSelectSchemaRows,
  compileSelectTableNames,
} from '../../src/query/sql/bookkeeping-sql.js';
import { compileAddColumn, compileCreateIndex, compileCreateJoinTable, compileCreateTable, compileDropTable } from '../../src/query/sql/ddl-compiler.js';
import { postgresDialect, sqliteDialect } from '../../src/query/sql/index.js';
import {
  compileAddRelation,
  compileClearRelation,
  compileDeleteById,
  compileInsert,
  compileRemoveRelation,
  compileSelectById,
  compileUpdate,
} from '../../src/query/sql/write-compiler.js';

/**
 * The write, DDL and bookkeeping statements of the SQL core, stated in full per dialect (house
 * style #7), then the SQLite ones run on a real SQLite database.
 */
const COLUMNS: ReadonlyArray<readonly [string, ColumnSchema]> = [
  ['name', { type: 'String' }],
  ['score', { type: 'Number' }],
  ['active', { type: 'Boolean' }],
  ['born', { type: 'Date' }],
  ['team', { type: 'Pointer', targetClass: 'Team' }],
  ['tags', { type: 'Array' }],
  ['photo', { type: 'File' }],
  ['profile', { type: 'Object' }],
  ['location', { type: 'GeoPoint' }],
  ['friends', { type: 'Relation', targetClass: 'Player' }],
];
const SCHEMA: TableSchema = { className: 'Player', columns: Object.fromEntries(COLUMNS), indexes: [] };

describe('SQL core statements: DDL', () => {
  it('CREATE TABLE with every column type, and its createdAt index', () => {
    expect(compileCreateTable(sqliteDialect, 'app__Player', COLUMNS).map((q) => q.sql)).toEqual([
      'CREATE TABLE IF NOT EXISTS "app__Player" ("objectId" TEXT PRIMARY KEY NOT NULL, "createdAt" INTEGER NOT NULL, "updatedAt" INTEGER NOT NULL, ' +
        '"name" TEXT, "score" REAL, "active" INTEGER, "born" INTEGER, "team" TEXT, "tags" TEXT, "photo" TEXT, "profile" TEXT, "location$lat" REAL, "location$lng" REAL)',
      'CREATE INDEX IF NOT EXISTS "app__Player$$createdAt" ON "app__Player" ("createdAt", "objectId")',
    ]);
    expect(compileCreateTable(postgresDialect, 'app__Player', COLUMNS).map((q) => q.sql)).toEqual([
      'CREATE TABLE IF NOT EXISTS "app__Player" ("objectId" text PRIMARY KEY NOT NULL, "createdAt" bigint NOT NULL, "updatedAt" bigint NOT NULL, ' +
        '"name" text, "score" double precision, "active" boolean, "born" bigint, "team" text, "tags" jsonb, "photo" jsonb, "profile" jsonb, ' +
        '"location$lat" double precision, "location$lng" double precision)',
      // Spelled as finds order (D160).
      'CREATE INDEX IF NOT EXISTS "app__Player$$createdAt" ON "app__Player" ("createdAt" ASC NULLS FIRST, "objectId" COLLATE "C" ASC NULLS FIRST)',
    ]);
  });

  it('ADD COLUMN per physical column; a Relation adds none (it gets a join table)', () => {
    expect(compileAddColumn(sqliteDialect, 'app__Player', 'home', { type: 'GeoPoint' })).toEqual([
      { sql: 'ALTER TABLE "app__Player" ADD COLUMN "home$lat" REAL', parameters: [] },
      { sql: 'ALTER TABLE "app__Player" ADD COLUMN "home$lng" REAL', parameters: [] },
    ]);
    expect(compileAddColumn(postgresDialect, 'app__Player', 'level', { type: 'Number' })).toEqual([
      { sql: 'ALTER TABLE "app__Player" ADD COLUMN IF NOT EXISTS "level" double precision', parameters: [] },
    ]);
    expect(compileAddColumn(postgresDialect, 'app__Player', 'fans', { type: 'Relation', targetClass: 'Player' })).toEqual([]);
  });

  it('a Relation join table with its relatedId index', () => {
    expect(compileCreateJoinTable(sqliteDialect, 'app__Player$friends').map((q) => q.sql)).toEqual([
      'CREATE TABLE IF NOT EXISTS "app__Player$friends" ("owningId" TEXT NOT NULL, "relatedId" TEXT NOT NULL, PRIMARY KEY ("owningId", "relatedId")) WITHOUT ROWID',
      'CREATE INDEX IF NOT EXISTS "app__Player$friends$$related" ON "app__Player$friends" ("relatedId")',
    ]);
    expect(compileCreateJoinTable(postgresDialect, 'app__Player$friends')[0]!.sql).toBe(
      'CREATE TABLE IF NOT EXISTS "app__Player$friends" ("owningId" text NOT NULL, "relatedId" text NOT NULL, PRIMARY KEY ("owningId", "relatedId"))',
    );
  });

  it('CREATE [UNIQUE] INDEX IF NOT EXISTS over physical columns; DROP TABLE', () => {
    const unique = compileCreateIndex(sqliteDialect, 'app__Player', { name: 'by_name', columns: ['name'], unique: true }, SCHEMA);
    expect(unique).toEqual({ sql: 'CREATE UNIQUE INDEX IF NOT EXISTS "app__Player$ix$by_name" ON "app__Player" ("name")', parameters: [] });
    const geo = compileCreateIndex(postgresDialect, 'app__Player', { name: 'near', columns: ['location', 'createdAt'], unique: false }, SCHEMA);
    expect(geo.sql).toBe(
      'CREATE INDEX IF NOT EXISTS "app__Player$ix$near" ON "app__Player" ("location$lat" ASC NULLS FIRST, "location$lng" ASC NULLS FIRST, "createdAt" ASC NULLS FIRST, "objectId" COLLATE "C" ASC NULLS FIRST)',
    );
    const name = compileCreateIndex(postgresDialect, 'app__Player', { name: 'by_name', columns: ['name'], unique: true }, SCHEMA);
    expect(name.sql).toBe('CREATE UNIQUE INDEX IF NOT EXISTS "app__Player$ix$by_name" ON "app__Player" ("name" COLLATE "C" ASC NULLS FIRST)');
    expect(compileDropTable(postgresDialect, 'app__Player').sql).toBe('DROP TABLE IF EXISTS "app__Player"');
  });

  it('refuses an identifier outside [A-Za-z0-9_$] in both dialects, before any SQL exists', () => {
    for (const dialect of [sqliteDialect, postgresDialect]) {
      expect(() => compileCreateTable(dialect, 'app__P"; DROP TABLE x; --', [])).toThrow(/refusing identifier/);
      expect(() => compileAddColumn(dialect, 'app__Player', 'a b', { type: 'String' })).toThrow(/refusing identifier/);
      expect(() => compileInsert(dialect, 'app__Player', ['objectId', 'x"y'], ['a', 1])).toThrow(/refusing identifier/);
    }
  });

  it('hashes a PostgreSQL identifier past 63 bytes into its own 63-byte name (two long names never meet); SQLite keeps it', () => {
    const long = `app__${'C'.repeat(60)}`;
    const other = `app__${'C'.repeat(59)}D`;
    const pg = compileCreateTable(postgresDialect, long, [])[0]!.sql;
    const name = /^CREATE TABLE IF NOT EXISTS "([^"]+)"/.exec(pg)![1]!;
    expect(name).toHaveLength(63);
    expect(name).toMatch(/^app__C+\$h[0-9a-f]{14}$/);
    expect(compileCreateTable(postgresDialect, long, [])[0]!.sql).toBe(pg);
    const otherName = /^CREATE TABLE IF NOT EXISTS "([^"]+)"/.exec(compileCreateTable(postgresDialect, other, [])[0]!.sql)![1]!;
    expect(otherName).not.toBe(name);
    expect(compileCreateTable(postgresDialect, 'app__Short', [])[0]!.sql).toContain('"app__Short"');
    expect(compileCreateTable(sqliteDialect, long, [])[0]!.sql).toContain(`"${long}"`);
    expect(() => compileDropTable(sqliteDialect, 'x'.repeat(201))).toThrow(/refusing identifier/);
  });
});

describe('SQL core statements: rows', () => {
  it('INSERT binds every value', () => {
    const columns = ['objectId', 'createdAt', 'updatedAt', 'name'];
    expect(compileInsert(sqliteDialect, 'app__Player', columns, ['p1', 1, 1, 'ann'])).toEqual({
      sql: 'INSERT INTO "app__Player" ("objectId", "createdAt", "updatedAt", "name") VALUES (?, ?, ?, ?)',
      parameters: ['p1', 1, 1, 'ann'],
    });
    expect(compileInsert(postgresDialect, 'app__Player', columns, ['p1', 1, 1, 'ann']).sql).toBe(
      'INSERT INTO "app__Player" ("objectId", "createdAt", "updatedAt", "name") VALUES ($1, $2, $3, $4)',
    );
  });

  it('UPDATE of set, unset (set to NULL) and increment, returning the row', () => {
    const assignments = [
      { kind: 'set', column: 'name', value: 'bo' },
      { kind: 'set', column: 'location$lat', value: null },
      { kind: 'increment', column: 'score', amount: 2 },
    ] as const;
    expect(compileUpdate(sqliteDialect, 'app__Player', assignments, 'p1', 5)).toEqual({
      // SQLite would store a sum past the double range as Infinity: the WHERE leaves such a row unmatched.
      sql: 'UPDATE "app__Player" SET "name" = ?, "location$lat" = ?, "score" = COALESCE("score", 0) + ?, "updatedAt" = ? WHERE "objectId" = ? AND abs(COALESCE("score", 0) + ?) <= 1.7976931348623157e308 RETURNING *',
      parameters: ['bo', null, 2, 5, 'p1', 2],
    });
    expect(compileUpdate(postgresDialect, 'app__Player', assignments, 'p1', 5).sql).toBe(
      'UPDATE "app__Player" SET "name" = $1, "location$lat" = $2, "score" = COALESCE("score", 0) + $3, "updatedAt" = $4 WHERE "objectId" = $5 RETURNING *',
    );
  });

  it('the read of a read-modify-write (array ops, dot paths) locks the row in PostgreSQL', () => {
    expect(compileSelectById(sqliteDialect, 'app__Player', 'p1', undefined, true)).toEqual({ sql: 'SELECT * FROM "app__Player" WHERE "objectId" = ?', parameters: ['p1'] });
    expect(compileSelectById(postgresDialect, 'app__Player', 'p1', undefined, true).sql).toBe('SELECT * FROM "app__Player" WHERE "objectId" = $1 FOR UPDATE');
    expect(compileSelectById(postgresDialect, 'app__Player', 'p1', ['objectId', 'name']).sql).toBe('SELECT "objectId", "name" FROM "app__Player" WHERE "objectId" = $1');
  });

  it('DELETE and the Relation join-table rows', () => {
    expect(compileDeleteById(postgresDialect, 'app__Player', 'p1')).toEqual({ sql: 'DELETE FROM "app__Player" WHERE "objectId" = $1', parameters: ['p1'] });
    expect(compileAddRelation(sqliteDialect, 'app__Player$friends', 'p1', 'p2')).toEqual({
      sql: 'INSERT OR IGNORE INTO "app__Player$friends" ("owningId", "relatedId") VALUES (?, ?)',
      parameters: ['p1', 'p2'],
    });
    expect(compileAddRelation(postgresDialect, 'app__Player$friends', 'p1', 'p2').sql).toBe(
      'INSERT INTO "app__Player$friends" ("owningId", "relatedId") VALUES ($1, $2) ON CONFLICT DO NOTHING',
    );
    expect(compileRemoveRelation(postgresDialect, 'app__Player$friends', 'p1', 'p2').sql).toBe(
      'DELETE FROM "app__Player$friends" WHERE "owningId" = $1 AND "relatedId" = $2',
    );
    expect(compileClearRelation(sqliteDialect, 'app__Player$friends', 'p1').sql).toBe('DELETE FROM "app__Player$friends" WHERE "owningId" = ?');
  });
});

describe('SQL core statements: bookkeeping', () => {
  it('the two bookkeeping tables; PostgreSQL keeps insertion order in a seq column', () => {
    expect(compileCreateBookkeeping(sqliteDialect).map((q) => q.sql)).toEqual([
      'CREATE TABLE IF NOT EXISTS "_svc_schema" ("namespace" TEXT NOT NULL, "className" TEXT NOT NULL, "column" TEXT NOT NULL, "type" TEXT NOT NULL, "targetClass" TEXT, PRIMARY KEY ("namespace", "className", "column")) WITHOUT ROWID',
      'CREATE TABLE IF NOT EXISTS "_svc_indexes" ("namespace" TEXT NOT NULL, "className" TEXT NOT NULL, "name" TEXT NOT NULL, "columns" TEXT NOT NULL, "unique" INTEGER NOT NULL, PRIMARY KEY ("namespace", "className", "name"))',
    ]);
    expect(compileCreateBookkeeping(postgresDialect)[1]!.sql).toBe(
      'CREATE TABLE IF NOT EXISTS "_svc_indexes" ("namespace" text NOT NULL, "className" text NOT NULL, "name" text NOT NULL, "columns" text NOT NULL, "unique" boolean NOT NULL, "seq" bigserial, PRIMARY KEY ("namespace", "className", "name"))',
    );
  });

  it('reads and writes of schema and index rows', () => {
    expect(compileSelectSchemaRows(postgresDialect, 'app', 'Player')).toEqual({
      sql: 'SELECT "column", "type", "targetClass" FROM "_svc_schema" WHERE "namespace" = $1 AND "className" = $2',
      parameters: ['app', 'Player'],
    });
    expect(compileSelectIndexRows(sqliteDialect, 'app', 'Player').sql).toBe(
      'SELECT "name", "columns", "unique" FROM "_svc_indexes" WHERE "namespace" = ? AND "className" = ? ORDER BY rowid',
    );
    expect(compileSelectIndexRows(postgresDialect, 'app', 'Player').sql).toMatch(/ORDER BY "seq"$/);
    expect(compileSelectTableNames(postgresDialect, 'app')).toEqual({
      sql: 'SELECT "className" FROM "_svc_schema" WHERE "namespace" = $1 AND "column" = $2',
      parameters: ['app', ''],
    });
    expect(compileSelectNamespaceRows(sqliteDialect, 'app').sql).toBe('SELECT "className", "column", "type" FROM "_svc_schema" WHERE "namespace" = ?');
    expect(compileInsertSchemaRow(postgresDialect, 'app', 'Player', 'team', 'Pointer', 'Team')).toEqual({
      sql: 'INSERT INTO "_svc_schema" ("namespace", "className", "column", "type", "targetClass") VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING',
      parameters: ['app', 'Player', 'team', 'Pointer', 'Team'],
    });
    expect(compileInsertSchemaRow(sqliteDialect, 'app', 'Player', 'team', 'Pointer', 'Team').sql).toMatch(/^INSERT OR IGNORE INTO "_svc_schema"/);
    expect(compileInsertIndexRow(postgresDialect, 'app', 'Player', 'by_name', ['name'], true).parameters).toEqual(['app', 'Player', 'by_name', '["name"]', true]);
    expect(compileInsertIndexRow(sqliteDialect, 'app', 'Player', 'by_name', ['name'], true).parameters).toEqual(['app', 'Player', 'by_name', '["name"]', 1]);
    expect(compileDeleteNamespaceRows(postgresDialect, 'app').map((q) => q.sql)).toEqual([
      'DELETE FROM "_svc_schema" WHERE "namespace" = $1',
      'DELETE FROM "_svc_indexes" WHERE "namespace" = $1',
    ]);
  });
});

describe('SQL core statements run on SQLite', () => {
  it('DDL, bookkeeping, insert, update, relations and delete do what they say', () => {
    const db = new Database(':memory:');
    const d = sqliteDialect;
    const run = (q: { sql: string; parameters: readonly unknown[] }) => db.prepare(q.sql).run(...q.parameters);
    const get = (q: { sql: string; parameters: readonly unknown[] }) => db.prepare(q.sql).get(...q.parameters) as Record<string, unknown> | undefined;
    for (const q of [...compileCreateBookkeeping(d), ...compileCreateBookkeeping(d)]) db.exec(q.sql);
    for (const q of [...compileCreateTable(d, 'app__Player', COLUMNS), ...compileCreateJoinTable(d, 'app__Player$friends')]) db.exec(q.sql);
    for (const q of compileAddColumn(d, 'app__Player', 'home', { type: 'GeoPoint' })) db.exec(q.sql);
    db.exec(compileCreateIndex(d, 'app__Player', { name: 'by_name', columns: ['name'], unique: true }, SCHEMA).sql);
    db.exec(compileCreateIndex(d, 'app__Player', { name: 'by_name', columns: ['name'], unique: true }, SCHEMA).sql);

    run(compileInsertSchemaRow(d, 'app', 'Player', '', '', null));
    run(compileInsertSchemaRow(d, 'app', 'Player', 'team', 'Pointer', 'Team'));
    run(compileInsertSchemaRow(d, 'app', 'Player', 'team', 'String', null));
    run(compileInsertIndexRow(d, 'app', 'Player', 'z', ['name'], true));
    run(compileInsertIndexRow(d, 'app', 'Player', 'a', ['score'], false));
    expect(db.prepare(compileSelectSchemaRows(d, 'app', 'Player').sql).all('app', 'Player')).toEqual([
      { column: '', type: '', targetClass: null },
      { column: 'team', type: 'Pointer', targetClass: 'Team' },
    ]);
    expect(db.prepare(compileSelectIndexRows(d, 'app', 'Player').sql).all('app', 'Player')).toEqual([
      { name: 'z', columns: '["name"]', unique: 1 },
      { name: 'a', columns: '["score"]', unique: 0 },
    ]);
    expect(db.prepare(compileSelectTableNames(d, 'app').sql).all('app', '')).toEqual([{ className: 'Player' }]);

    run(compileInsert(d, 'app__Player', ['objectId', 'createdAt', 'updatedAt', 'name', 'home$lat', 'home$lng'], ['p1', 1, 1, 'ann', 10, 20]));
    expect(() => run(compileInsert(d, 'app__Player', ['objectId', 'createdAt', 'updatedAt', 'name'], ['p2', 1, 1, 'ann']))).toThrow(/UNIQUE/);
    const updated = get(compileUpdate(d, 'app__Player', [{ kind: 'increment', column: 'score', amount: 2 }, { kind: 'set', column: 'home$lat', value: null }], 'p1', 7));
    expect(updated).toMatchObject({ objectId: 'p1', score: 2, home$lat: null, home$lng: 20, updatedAt: 7 });
    expect(get(compileUpdate(d, 'app__Player', [{ kind: 'set', column: 'name', value: 'x' }], 'nope', 7))).toBeUndefined();
    expect(get(compileSelectById(d, 'app__Player', 'p1', ['objectId', 'score'], true))).toEqual({ objectId: 'p1', score: 2 });

    run(compileAddRelation(d, 'app__Player$friends', 'p1', 'p2'));
    run(compileAddRelation(d, 'app__Player$friends', 'p1', 'p2'));
    run(compileAddRelation(d, 'app__Player$friends', 'p1', 'p3'));
    run(compileRemoveRelation(d, 'app__Player$friends', 'p1', 'p3'));
    expect(db.prepare('SELECT * FROM "app__Player$friends"').all()).toEqual([{ owningId: 'p1', relatedId: 'p2' }]);
    run(compileClearRelation(d, 'app__Player$friends', 'p1'));
    expect(run(compileDeleteById(d, 'app__Player', 'p1')).changes).toBe(1);
    expect(db.prepare('SELECT COUNT(*) AS n FROM "app__Player$friends"').get()).toEqual({ n: 0 });

    for (const q of [compileDropTable(d, 'app__Player'), compileDropTable(d, 'app__Player$friends')]) db.exec(q.sql);
    for (const q of compileDeleteNamespaceRows(d, 'app')) run(q);
    expect(db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`).all()).toEqual([{ name: '_svc_indexes' }, { name: '_svc_schema' }]);
    expect(db.prepare('SELECT COUNT(*) AS n FROM "_svc_schema"').get()).toEqual({ n: 0 });
    db.close();
  });
});
