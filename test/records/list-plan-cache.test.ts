import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClassPermissionSource } from '../../src/access/class-permission-source.js';
import { OPEN_CLASS, type ClassPermissions, parseClassPermissions } from '../../src/access/class-permissions.js';
import { MASTER_ACCESS, createAccessControl } from '../../src/access/access-control.js';
import { TableRules } from '../../src/access/table-rules.js';
import { resolveApplication } from '../../src/app/application.js';
import { FakeClock } from '../../src/core/clock.js';
import { dateValue } from '../../src/core/values.js';
import type { Json } from '../../src/core/wire-values.js';
import type { WhereNode } from '../../src/query/plan.js';
import { ListPlanCache } from '../../src/records/list-plan-cache.js';
import { handleList } from '../../src/records/list-service.js';
import { readViews } from '../../src/records/read-restriction.js';
import type { StorageAdapter } from '../../src/storage/port.js';
import { sqliteStorage } from '../../src/storage/sqlite/index.js';
import { type TestServer, startTestServer } from '../helpers/server.js';

/**
 * The records service keeps parsed list queries by their text (list-plan-cache.ts): a repeated
 * list reuses its plan while the schemas it read are unchanged, the caller's access is still
 * applied per request, and a kept plan is frozen.
 */
const w = (where: unknown) => `where=${encodeURIComponent(JSON.stringify(where))}`;

describe('ListPlanCache', () => {
  const params = (text: string) => new URLSearchParams(text);

  it('keys every parameter in order, and refuses keys past its bound', () => {
    const a = ListPlanCache.keyOf('app', 'Post', params('where={"a":1}&limit=2'));
    expect(ListPlanCache.keyOf('app', 'Post', params('limit=2&where={"a":1}'))).not.toBe(a);
    expect(ListPlanCache.keyOf('app', 'Post', params('where={"a":1}&limit=3'))).not.toBe(a);
    expect(ListPlanCache.keyOf('app', 'Other', params('where={"a":1}&limit=2'))).not.toBe(a);
    expect(ListPlanCache.keyOf('other', 'Post', params('where={"a":1}&limit=2'))).not.toBe(a);
    // A value holding what separates parameters cannot pass for two parameters: lengths delimit them.
    for (const sep of ['\u0000', ':', '1:', '&']) {
      const forged = ListPlanCache.keyOf('app', 'Post', params(`a=${encodeURIComponent(`1${sep}b${sep}2`)}`));
      expect(forged).not.toBe(ListPlanCache.keyOf('app', 'Post', params('a=1&b=2')));
    }
    expect(ListPlanCache.keyOf('app', 'Post', params('a=1&b=2'))).not.toBe(ListPlanCache.keyOf('app', 'Post', params(`a=${encodeURIComponent('11:b1:2')}`)));
    expect(ListPlanCache.keyOf('app', 'Post', params(`where=${'x'.repeat(3000)}`))).toBeNull();
  });

  it('answers only for the same settings and secret-column rule, and freezes what it keeps', () => {
    const cache = new ListPlanCache();
    const app = resolveApplication({ applicationId: 'a', restApiKey: 'r', masterKey: 'm', namespace: 'app' });
    const secret = () => false;
    const where: WhereNode = { kind: 'and', nodes: [{ kind: 'compare', op: 'eq', field: { column: 'a', path: [] }, value: 1 }] };
    cache.set('k', { settings: app.settings, isSecretColumn: secret, schemas: new Map() }, { query: { kind: 'count', where }, footprint: new Map() });
    expect(cache.get('k', app.settings, secret)?.query.kind).toBe('count');
    expect(cache.get('k', { ...app.settings }, secret)).toBeUndefined();
    expect(cache.get('k', app.settings, () => false)).toBeUndefined();
    expect(Object.isFrozen(where)).toBe(true);
    expect(() => (where as unknown as { nodes: WhereNode[] }).nodes.push({ kind: 'all_records' })).toThrow(TypeError);
  });

  it('keeps at most 512 plans, the oldest going first', () => {
    const cache = new ListPlanCache();
    const app = resolveApplication({ applicationId: 'a', restApiKey: 'r', masterKey: 'm', namespace: 'app' });
    const inputs = { settings: app.settings, isSecretColumn: undefined, schemas: new Map() };
    for (let i = 0; i < 513; i++) cache.set(`k${i}`, inputs, { query: { kind: 'count', where: { kind: 'all_records' } }, footprint: new Map() });
    expect(cache.get('k0', app.settings, undefined)).toBeUndefined();
    expect(cache.get('k1', app.settings, undefined)).toBeDefined();
    expect(cache.get('k512', app.settings, undefined)).toBeDefined();
  });
});

describe('handleList with a plan cache (SQLite)', () => {
  const ref = { namespace: 'app', className: 'Game' };
  const app = resolveApplication({ applicationId: 'a', restApiKey: 'r', masterKey: 'm', namespace: 'app' });
  let storage: StorageAdapter;
  const counted: WhereNode[] = [];
  const plans = new ListPlanCache();

  beforeAll(async () => {
    storage = sqliteStorage({ database: new Database(':memory:') });
    await storage.ensureColumns(ref, { score: { type: 'Number' } });
    for (let i = 0; i < 10; i++) await storage.insert(ref, { objectId: `g${i}`, createdAt: dateValue(1000 + i), updatedAt: dateValue(1000 + i), score: i });
  });
  afterAll(() => storage.close());

  const recording: () => StorageAdapter = () =>
    new Proxy(storage, {
      get(target, key) {
        if (key === 'count') return (t: typeof ref, where: WhereNode, options?: object) => (counted.push(where), target.count(t, where, options));
        const value = Reflect.get(target, key) as unknown;
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
  const count = async (query: string) => {
    const views = readViews(storage, createAccessControl({ storage, clock: new FakeClock(0), tables: new TableRules() }), MASTER_ACCESS, 'app');
    const { body } = await handleList({ app, query: new URLSearchParams(query) }, { storage: recording(), className: 'Game', views, operation: 'count', plans });
    return body['count'];
  };

  it("reuses the plan of a repeated list, and parses again once the table's schema changed", async () => {
    expect(await count(`${w({ score: { $gte: 5 } })}&count=1&limit=0`)).toBe(5);
    expect(await count(`${w({ score: { $gte: 5 } })}&count=1&limit=0`)).toBe(5);
    expect(counted[1]).toBe(counted[0]);
    expect(await count(`${w({ level: 2 })}&count=1&limit=0`)).toBe(0);
    await storage.ensureColumns(ref, { level: { type: 'Number' } });
    await storage.insert(ref, { objectId: 'g10', createdAt: dateValue(2000), updatedAt: dateValue(2000), score: 10, level: 2 });
    expect(await count(`${w({ level: 2 })}&count=1&limit=0`)).toBe(1);
    expect(counted[3]).not.toBe(counted[2]);
    expect(await count(`${w({ score: { $gte: 5 } })}&count=1&limit=0`)).toBe(6);
    expect(counted[4]).not.toBe(counted[0]);
  });
});

describe('a kept plan over HTTP (SQLite)', () => {
  let server: TestServer;
  const rules = new Map<string, ClassPermissions>();
  const source: ClassPermissionSource = { permissionsOf: async (table) => rules.get(table.className) ?? OPEN_CLASS };
  const set = (className: string, wire: Json) => rules.set(className, parseClassPermissions(wire));
  beforeAll(async () => {
    server = await startTestServer({ storage: sqliteStorage({ database: new Database(':memory:') }), classPermissions: source });
    await server.request('POST', '/1/classes/Post', { auth: 'master', body: { title: 'a', secret: 's1' } });
  });
  afterAll(() => server.close());

  it('still refuses a hidden column to a caller after the master key listed by it', async () => {
    set('Post', { protectedFields: { '*': ['secret'] } });
    const query = `/1/classes/Post?${w({ secret: 's1' })}`;
    for (let i = 0; i < 2; i++) expect((await server.request('GET', query, { auth: 'master' })).body.results).toHaveLength(1);
    const refused = await server.request('GET', query);
    expect([refused.status, refused.body.code]).toEqual([400, 102]);
    expect((await server.request('GET', query, { auth: 'master' })).body.results).toHaveLength(1);
  });

  it('lists what a table holds now: nothing before it exists, its records after', async () => {
    const query = `/1/classes/Later?${w({ n: 1 })}&count=1`;
    expect((await server.request('GET', query)).body).toEqual({ results: [], count: 0 });
    expect((await server.request('POST', '/1/classes/Later', { body: { n: 1 } })).status).toBe(201);
    const after = await server.request('GET', query);
    expect([after.body.results.length, after.body.count]).toEqual([1, 1]);
  });
});
