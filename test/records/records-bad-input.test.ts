import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.js';
import { startRecordsServer } from './records-server.js';

/** Bad input gets a clear error and writes nothing (issue 3). */
describe('records REST: bad input writes nothing', () => {
  let server: TestServer;
  let path: string;
  let original: Record<string, unknown>;
  let originalColumns: unknown;
  const storage = () => server.service.context.storage;
  const ref = (className: string) => ({ namespace: 'test_app', className });

  beforeAll(async () => {
    server = await startRecordsServer();
    const created = await server.request('POST', '/1/classes/Game', {
      body: { score: 1, name: 'n', tags: ['a'], address: { city: 'x' }, likes: { __type: 'Relation', className: '_User' } },
    });
    path = `/1/classes/Game/${created.body.objectId}`;
    original = (await server.request('GET', path)).body;
    originalColumns = (await storage().getSchema(ref('Game')))?.columns;
  });
  afterAll(() => server.close());

  const deep = (levels: number): unknown => {
    let value: unknown = 1;
    for (let i = 0; i < levels; i++) value = { a: value };
    return value;
  };

  const badBodies: Array<[string, string, number]> = [
    ['wrong type for an existing column', JSON.stringify({ good: 1, score: 'ten' }), 111],
    ['Increment on a string column', JSON.stringify({ good: 1, name: { __op: 'Increment' } }), 111],
    ['Increment with a string amount', JSON.stringify({ good: 1, score: { __op: 'Increment', amount: '1' } }), 107],
    ['unknown __op', JSON.stringify({ good: 1, score: { __op: 'Multiply', amount: 2 } }), 107],
    ['Add without objects', JSON.stringify({ good: 1, tags: { __op: 'Add' } }), 107],
    ['AddRelation with a non-pointer', JSON.stringify({ good: 1, likes: { __op: 'AddRelation', objects: [1] } }), 106],
    ['AddRelation of the wrong class', JSON.stringify({ good: 1, likes: { __op: 'AddRelation', objects: [{ __type: 'Pointer', className: 'Post', objectId: 'x' }] } }), 111],
    ['__proto__ at the top', '{"good":1,"__proto__":{"polluted":true}}', 11004],
    ['__proto__ nested', '{"good":1,"doc":{"a":[{"__proto__":{"polluted":true}}]}}', 11004],
    ['constructor key', '{"good":1,"doc":{"constructor":{"prototype":1}}}', 11004],
    ['prototype key at the top', '{"good":1,"prototype":1}', 11004],
    ['invalid field name', JSON.stringify({ good: 1, 'bad-name': 1 }), 105],
    ['SQL in a field name', JSON.stringify({ good: 1, 'x"; DROP TABLE "test_app__Game"; --': 1 }), 105],
    ['reserved field', JSON.stringify({ good: 1, objectId: 'mine' }), 105],
    ['an ACL of the wrong shape', JSON.stringify({ good: 1, ACL: { x: { read: 1 } } }), 107],
    ['an ACL that is not an object', JSON.stringify({ good: 1, ACL: [] }), 107],
    ['an ACL principal that is a prototype key', '{"good":1,"ACL":{"toString":{"read":true}}}', 107],
    ['a path into the ACL', JSON.stringify({ good: 1, 'ACL.x': { read: true } }), 105],
    ['Date without iso', JSON.stringify({ good: 1, when: { __type: 'Date' } }), 107],
    ['Date with a bad iso', JSON.stringify({ good: 1, when: { __type: 'Date', iso: '2026-02-31 00:00:00' } }), 107],
    ['Pointer without objectId', JSON.stringify({ good: 1, owner: { __type: 'Pointer', className: '_User' } }), 106],
    ['Pointer with a bad class', JSON.stringify({ good: 1, owner: { __type: 'Pointer', className: "x'--", objectId: 'a' } }), 106],
    ['GeoPoint out of range', JSON.stringify({ good: 1, place: { __type: 'GeoPoint', latitude: 100, longitude: 0 } }), 117],
    ['GeoPoint missing a part', JSON.stringify({ good: 1, place: { __type: 'GeoPoint', latitude: 1 } }), 102],
    ['File without url', JSON.stringify({ good: 1, file: { __type: 'File', filename: 'a' } }), 11005],
    ['unknown __type', JSON.stringify({ good: 1, thing: { __type: 'Banana' } }), 11005],
    ['deeply nested body', JSON.stringify({ good: 1, doc: deep(100) }), 11003],
    ['a JSON array body', '[1,2,3]', 107],
    ['not JSON', '{"good":1,', 107],
    ['dot key into a scalar column', JSON.stringify({ good: 1, 'name.first': 'x' }), 111],
    ['dot key with a forbidden segment', JSON.stringify({ good: 1, 'address.__proto__.x': 1 }), 11004],
    ['an __op inside an array value', JSON.stringify({ good: 1, tags2: [{ __op: 'Delete' }] }), 107],
    ['a non-finite number', '{"good":1,"n":1e400}', 111],
  ];

  for (const [label, raw, code] of badBodies) {
    it(`create and update refuse ${label} (${code})`, async () => {
      const headers = { 'content-type': 'application/json' };
      const created = await server.request('POST', '/1/classes/Game', { rawBody: raw, headers });
      expect(created.body.code).toBe(code);
      expect(created.status).toBeGreaterThanOrEqual(400);
      const updated = await server.request('PUT', path, { rawBody: raw, headers });
      expect(updated.body.code).toBe(code);
      expect((await server.request('GET', path)).body).toEqual(original);
      // Every bad body also holds a valid column `good`: had anything been written, the column would exist.
      expect((await storage().getSchema(ref('Game')))?.columns).toEqual(originalColumns);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });
  }

  it('refuses invalid table names (103) and writes nothing', async () => {
    for (const table of ['1abc', 'bad-name', "x'; DROP TABLE t; --", 'a"b', '__double', 'a.b']) {
      const res = await server.request('POST', `/1/classes/${encodeURIComponent(table)}`, { body: { a: 1 } });
      expect(res.body.code, table).toBe(103);
    }
    expect(await storage().getSchema(ref('a'))).toBeNull();
  });

  it('stores SQL metacharacters in values as plain data', async () => {
    const value = `'; DROP TABLE "test_app__Game"; -- \\ " \` $1 ?`;
    const created = await server.request('POST', '/1/classes/Game', { body: { name: value } });
    expect(created.status).toBe(201);
    expect((await server.request('GET', `/1/classes/Game/${created.body.objectId}`)).body.name).toBe(value);
    expect((await server.request('GET', path)).body).toEqual(original);
  });

  it('a type conflict with the stored column is 111 on create too', async () => {
    const res = await server.request('POST', '/1/classes/Game', { body: { score: 'high' } });
    expect(res.body).toEqual({ code: 111, error: "invalid type for key 'score', expected 'Number', but got 'String'." });
  });

  it('objectIds that cannot exist are 101', async () => {
    for (const id of ["a'b", 'x'.repeat(65), 'a b']) {
      const res = await server.request('GET', `/1/classes/Game/${encodeURIComponent(id)}`);
      expect(res.body.code).toBe(101);
    }
  });

  // A write's implied column types were looked up on a plain object: `toString` found Object.prototype's method.
  it('columns named like Object.prototype methods are ordinary columns on create, update and batch', async () => {
    const names = ['toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf', 'propertyIsEnumerable', 'toLocaleString'];
    const body = Object.fromEntries(names.map((name, i) => [name, `v${i}`]));
    const created = await server.request('POST', '/1/classes/ProtoNames', { body });
    expect(created.status).toBe(201);
    const one = `/1/classes/ProtoNames/${created.body.objectId}`;
    expect((await server.request('GET', one)).body).toMatchObject(body);
    expect((await server.request('PUT', one, { body: { toString: 'changed', valueOf: { __op: 'Delete' } } })).status).toBe(200);
    const batch = await server.request('POST', '/1/batch', { body: { requests: [{ method: 'POST', path: '/1/classes/ProtoNames2', body: { hasOwnProperty: 1, toString: 'x' } }] } });
    expect(batch.body[0]).toHaveProperty('success');
    const found = await server.request('GET', `/1/classes/ProtoNames?where=${encodeURIComponent(JSON.stringify({ toString: 'changed' }))}`);
    expect(found.body.results).toHaveLength(1);
    expect(Object.hasOwn(found.body.results[0], 'valueOf')).toBe(false);
  });

  it('an Increment past the double range answers 111 and leaves the number as it was', async () => {
    const created = await server.request('POST', '/1/classes/Inc', { body: { n: 1 } });
    const one = `/1/classes/Inc/${created.body.objectId}`;
    const big = { n: { __op: 'Increment', amount: Number.MAX_VALUE } };
    expect((await server.request('PUT', one, { body: big })).status).toBe(200);
    const refused = await server.request('PUT', one, { body: big });
    expect(refused).toMatchObject({ status: 400, body: { code: 111 } });
    expect((await server.request('GET', one)).body.n).toBe(Number.MAX_VALUE);
    expect((await server.request('PUT', '/1/classes/Inc/missing0000', { body: big })).body.code).toBe(101);
  });

  it('a table differing from a system table only in letter case is refused (11080), even with the master key, so it cannot take that table\'s place', async () => {
    for (const name of ['_classPermissions', '_CLASSPERMISSIONS']) {
      expect((await server.request('POST', `/1/classes/${name}`, { body: { a: 1 }, auth: 'master' })).body.code, name).toBe(11080);
      expect((await server.request('POST', `/1/schemas/${name}`, { body: { fields: { a: { type: 'Number' } } }, auth: 'master' })).body.code, name).toBe(11080);
      const batch = await server.request('POST', '/1/batch', { body: { requests: [{ method: 'POST', path: `/1/classes/${name}`, body: { a: 1 } }] }, auth: 'master' });
      expect([11071, 11080], name).toContain(batch.body[0]?.error?.code ?? batch.body.code); // batch refuses `_` tables anyway
    }
    // Class-level permissions, kept in `_ClassPermissions`, still work afterwards.
    const clp = await server.request('PUT', '/1/schemas/Game', { body: { classLevelPermissions: { find: { '*': true }, get: { '*': true } } }, auth: 'master' });
    expect(clp.status).toBe(200);
    expect((await storage().listTables?.('test_app'))?.some((t) => t.toLowerCase() === '_classpermissions' && t !== '_ClassPermissions') ?? false).toBe(false);
  });
});
