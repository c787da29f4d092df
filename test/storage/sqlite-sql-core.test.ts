import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { dateValue } from '../../src/core/values.js';
import type { StoredRecord } from '../../src/core/values.js';
import { sqliteStorage } from '../../src/storage/sqlite/index.js';

/**
 * The SQLite adapter on the SQL core (D43): its statements now come from the dialect compilers,
 * with every identifier quoted and `IF NOT EXISTS` on declared indexes. A database laid out by the
 * hand-built statements of earlier versions must keep working unchanged.
 */
const LEGACY_DDL = [
  'CREATE TABLE "_svc_schema" (namespace TEXT NOT NULL, className TEXT NOT NULL, "column" TEXT NOT NULL, type TEXT NOT NULL, targetClass TEXT, PRIMARY KEY (namespace, className, "column")) WITHOUT ROWID',
  'CREATE TABLE "_svc_indexes" (namespace TEXT NOT NULL, className TEXT NOT NULL, name TEXT NOT NULL, columns TEXT NOT NULL, "unique" INTEGER NOT NULL, PRIMARY KEY (namespace, className, name))',
  'CREATE TABLE "app__Game" (objectId TEXT PRIMARY KEY NOT NULL, createdAt INTEGER NOT NULL, updatedAt INTEGER NOT NULL, "score" REAL, "tags" TEXT)',
  'CREATE INDEX "app__Game$$createdAt" ON "app__Game" (createdAt, objectId)',
  'CREATE TABLE "app__Game$likes" (owningId TEXT NOT NULL, relatedId TEXT NOT NULL, PRIMARY KEY (owningId, relatedId)) WITHOUT ROWID',
  'CREATE INDEX "app__Game$likes$$related" ON "app__Game$likes" (relatedId)',
  'CREATE UNIQUE INDEX "app__Game$ix$byScore" ON "app__Game" ("score")',
  `INSERT INTO "_svc_schema" VALUES ('app', 'Game', '', '', NULL), ('app', 'Game', 'score', 'Number', NULL), ('app', 'Game', 'tags', 'Array', NULL), ('app', 'Game', 'likes', 'Relation', '_User')`,
  `INSERT INTO "_svc_indexes" VALUES ('app', 'Game', 'byScore', '["score"]', 1)`,
  `INSERT INTO "app__Game" VALUES ('g1', 1000, 1000, 5, '["a"]')`,
  `INSERT INTO "app__Game$likes" VALUES ('g1', 'u1')`,
];

const ref = { namespace: 'app', className: 'Game' };
const at = (ms: number) => dateValue(ms);

describe('SQLite adapter on the SQL core', () => {
  it('D43: a database laid out by the hand-built statements of earlier versions keeps working', async () => {
    const db = new Database(':memory:');
    for (const statement of LEGACY_DDL) db.exec(statement);
    const storage = sqliteStorage({ database: db });

    expect(await storage.getSchema(ref)).toEqual({
      className: 'Game',
      columns: { score: { type: 'Number' }, tags: { type: 'Array' }, likes: { type: 'Relation', targetClass: '_User' } },
      indexes: [{ name: 'byScore', columns: ['score'], unique: true }],
    });
    expect(await storage.get(ref, 'g1')).toMatchObject({ objectId: 'g1', score: 5, tags: ['a'] });

    await storage.ensureColumns(ref, { name: { type: 'String' } });
    await storage.createIndex(ref, { name: 'byName', columns: ['name'], unique: false });
    await storage.insert(ref, { objectId: 'g2', createdAt: at(2000), updatedAt: at(2000), score: 6, name: 'two' } as StoredRecord);
    const updated = await storage.update(
      ref,
      'g1',
      [
        { kind: 'increment', column: 'score', path: [], amount: 10 },
        { kind: 'add_unique', column: 'tags', path: [], objects: ['a', 'b'] },
        { kind: 'add_relation', column: 'likes', targetClass: '_User', ids: ['u2'] },
      ],
      at(3000),
    );
    expect(updated).toMatchObject({ objectId: 'g1', score: 15, tags: ['a', 'b'] });
    expect(db.prepare('SELECT relatedId FROM "app__Game$likes" ORDER BY relatedId').all()).toEqual([{ relatedId: 'u1' }, { relatedId: 'u2' }]);
    // The legacy unique index still holds (the adapter answers synchronously outside a transaction).
    await expect(async () => storage.insert(ref, { objectId: 'g3', createdAt: at(4000), updatedAt: at(4000), score: 6 } as StoredRecord)).rejects.toMatchObject({ code: 401 });
    expect(await storage.delete(ref, 'g1')).toBe(true);
    expect(db.prepare('SELECT COUNT(*) AS n FROM "app__Game$likes"').get()).toEqual({ n: 0 });
    expect((await storage.getSchema(ref))?.indexes.map((i) => i.name)).toEqual(['byScore', 'byName']);
    await storage.close();
  });
});
