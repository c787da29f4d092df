import { afterAll, describe, expect, it } from 'vitest';
import { resolveApplication } from '../../src/app/application.js';
import { isSvcError } from '../../src/core/errors.js';
import { parseInclude } from '../../src/query/parse.js';
import type { ListRequest } from '../../src/records/list-service.js';
import { CONFORMANCE_TABLES } from '../../src/query/conformance/dataset.js';
import { caseSearchParams, type CaseParams } from '../../src/query/conformance/cases.js';
import { expandRecordIncludes, handleList } from '../../src/records/list-service.js';
import { fixtureStorage } from '../query/helpers/fake-storage.js';
import { MASTER_ACCESS, createAccessControl } from '../../src/access/access-control.js';
import { TableRules, tableRule } from '../../src/access/table-rules.js';
import { FakeClock } from '../../src/core/clock.js';
import { readViews } from '../../src/records/read-restriction.js';
import type { StorageAdapter } from '../../src/storage/port.js';
import { Fixture, rec } from '../query/helpers/fixture.js';

const fixture = new Fixture([
  ...CONFORMANCE_TABLES.map((t) => ({ schema: { className: t.className, columns: t.columns, indexes: [] }, records: t.records, ...(t.relations ? { relations: t.relations } : {}) })),
  {
    schema: { className: 'Comment', columns: { text: { type: 'String' }, author: { type: 'Pointer', targetClass: 'Player' }, mentions: { type: 'Array' } }, indexes: [] },
    records: [
      rec('c1', Date.UTC(2024, 1, 1), {
        text: 'hi',
        author: { __type: 'Pointer', className: 'Player', objectId: 'p01' },
        mentions: [{ __type: 'Pointer', className: 'Player', objectId: 'p02' }, { __type: 'Pointer', className: 'Player', objectId: 'gone' }],
      }),
      rec('c2', Date.UTC(2024, 1, 2), { text: 'yo', author: { __type: 'Pointer', className: 'Player', objectId: 'p04' } }),
    ],
  },
]);
afterAll(() => fixture.close());

function context(params: CaseParams, timeZone = 'UTC'): ListRequest {
  const app = resolveApplication({
    applicationId: 'app',
    restApiKey: 'rest',
    masterKey: 'master',
    namespace: 'app',
    settings: { timeZone, features: { regex: true } },
  });
  return { app, query: caseSearchParams(params) };
}

/** The master key's read views over `storage` (with `tables`' declared rules). */
function masterViews(storage: StorageAdapter, tables = new TableRules()) {
  return readViews(storage, createAccessControl({ storage, clock: new FakeClock(0), tables }), MASTER_ACCESS, 'app');
}

for (const engine of ['memory', 'sqlite'] as const) {
  describe(`handleList (${engine})`, () => {
    const storage = fixtureStorage(fixture, engine);
    const deps = (className: string) => ({ storage, className, views: masterViews(storage), operation: 'find' as const });
    const list = (params: CaseParams, className = 'Player', timeZone = 'UTC') => handleList(context(params, timeZone), deps(className));

    it('encodes records for the wire', async () => {
      const { body } = await list({ where: { name: 'Alice' } });
      expect(body).toEqual({
        results: [
          {
            objectId: 'p01',
            createdAt: '2024-01-01 00:01:00',
            updatedAt: '2024-01-01 00:01:00',
            name: 'Alice',
            score: 10,
            tags: ['a', 'b'],
            profile: { city: 'Paris', level: 3 },
            born: { __type: 'Date', iso: '1990-05-01 00:00:00' },
            active: true,
            team: { __type: 'Pointer', className: 'Team', objectId: 'T1' },
            location: { __type: 'GeoPoint', latitude: 48.85, longitude: 2.35 },
            hometown: 'Paris',
          },
        ],
      });
    });

    it('formats times in the application time zone', async () => {
      const { body } = await list({ where: { name: 'Alice' }, keys: 'born' }, 'Player', 'Asia/Shanghai');
      expect(body).toEqual({ results: [{ objectId: 'p01', createdAt: '2024-01-01 08:01:00', updatedAt: '2024-01-01 08:01:00', born: { __type: 'Date', iso: '1990-05-01 09:00:00' } }] }); // China kept DST in 1990
    });

    it('count=1 adds the total; with limit=0 only the total', async () => {
      const both = await list({ where: { score: { $gt: 10 } }, count: 1, limit: 1, keys: 'score' });
      expect(both.body).toMatchObject({ count: 4, results: [{ objectId: 'p02' }] });
      expect((await list({ count: 1, limit: 0 })).body).toEqual({ results: [], count: 8 });
    });

    it('statistics reply {results: rows} with values encoded', async () => {
      expect((await list({ min: 'born', groupby: 'active', where: { active: { $exists: true } } })).body).toEqual({
        results: [
          { _minBorn: { __type: 'Date', iso: '1985-01-01 00:00:00' }, active: false },
          { _minBorn: { __type: 'Date', iso: '1970-01-01 00:00:00' }, active: true },
        ],
      });
    });

    it('a table that does not exist lists nothing', async () => {
      expect((await list({ where: { a: 1 }, count: 1 }, 'Ghost')).body).toEqual({ results: [], count: 0 });
      expect((await list({ count: 1, limit: 0 }, 'Ghost')).body).toEqual({ results: [], count: 0 });
      expect((await list({ sum: 'x' }, 'Ghost')).body).toEqual({ results: [] });
    });

    it('include expands Pointers as __type Object', async () => {
      const { body } = await list({ where: { name: 'Alice' }, include: 'team', keys: 'team' });
      expect(body).toEqual({
        results: [
          {
            objectId: 'p01',
            createdAt: '2024-01-01 00:01:00',
            updatedAt: '2024-01-01 00:01:00',
            team: { __type: 'Object', className: 'Team', objectId: 'T1', createdAt: '2024-01-01 00:01:00', updatedAt: '2024-01-01 00:01:00', name: 'Red', city: 'Paris', winPct: 0.7 },
          },
        ],
      });
    });

    it('include with dots, field subsets and arrays of Pointers; missing targets stay Pointers', async () => {
      const { body } = await list({ include: 'author.team[name],mentions[name]', keys: 'author,mentions' }, 'Comment');
      expect(body).toEqual({
        results: [
          {
            objectId: 'c1',
            createdAt: '2024-02-01 00:00:00',
            updatedAt: '2024-02-01 00:00:00',
            author: expect.objectContaining({
              __type: 'Object',
              className: 'Player',
              objectId: 'p01',
              name: 'Alice',
              team: { __type: 'Object', className: 'Team', objectId: 'T1', createdAt: '2024-01-01 00:01:00', updatedAt: '2024-01-01 00:01:00', name: 'Red' },
            }),
            mentions: [
              { __type: 'Object', className: 'Player', objectId: 'p02', createdAt: '2024-01-01 00:02:00', updatedAt: '2024-01-01 00:02:00', name: 'bob' },
              { __type: 'Pointer', className: 'Player', objectId: 'gone' },
            ],
          },
          {
            objectId: 'c2',
            createdAt: '2024-02-02 00:00:00',
            updatedAt: '2024-02-02 00:00:00',
            author: expect.objectContaining({ __type: 'Object', objectId: 'p04', name: 'dave' }),
          },
        ],
      });
    });

    it('a declared secret column is hidden from listed and included records, and refused in queries', async () => {
      const tables = new TableRules();
      tables.declare('Player', tableRule({ secretColumns: ['name'] }));
      const views = masterViews(storage, tables);
      const players = await handleList(context({ where: { objectId: 'p01' }, keys: 'score,hometown' }), { ...deps('Player'), views });
      expect(players.body).toEqual({ results: [{ objectId: 'p01', createdAt: '2024-01-01 00:01:00', updatedAt: '2024-01-01 00:01:00', score: 10, hometown: 'Paris' }] });
      const comments = await handleList(context({ include: 'author', limit: 1 }), { ...deps('Comment'), views });
      expect((comments.body as { results: Array<{ author: object }> }).results[0]!.author).not.toHaveProperty('name');
      const named = await handleList(context({ keys: 'name' }), { ...deps('Player'), views, isSecretColumn: (table, column) => tables.ruleOf(table).secretColumns.has(column) }).catch((e: unknown) => e);
      expect(isSvcError(named) && named.code).toBe(102);
    });

    it('expandRecordIncludes expands one encoded record', async () => {
      const record = { objectId: 'c2', author: { __type: 'Pointer', className: 'Player', objectId: 'p04' } };
      await expandRecordIncludes(context({}).app, parseInclude('author'), { storage, views: masterViews(storage) }, record);
      expect(record.author).toMatchObject({ __type: 'Object', className: 'Player', objectId: 'p04', name: 'dave' });
    });

    it('reports query errors as SvcErrors', async () => {
      const err = await list({ where: { score: { $bad: 1 } } }).catch((e: unknown) => e);
      expect(isSvcError(err) && [err.code, err.message]).toEqual([102, "key 'score': unknown operator '$bad'."]);
      const badTable = await handleList(context({}), deps('a-b')).catch((e: unknown) => e);
      expect(isSvcError(badTable) && badTable.code).toBe(103);
    });
  });
}
