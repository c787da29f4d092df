import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storageBackends } from '../helpers/backends.js';
import { type UsersServer, startUsersServer } from '../users/users-server.js';

/** The schema API over real HTTP on every backend: tables, typed fields, indexes, class-level permissions. */
const BACKENDS = await storageBackends('schema-api', 'svc_schemaapi');

describe.each(BACKENDS)('schema API over HTTP (%s)', (_name, backend) => {
  let server: UsersServer;
  let drop: (() => Promise<void>) | undefined;
  const master = (method: string, path: string, body?: unknown) => server.request(method, path, { body, auth: 'master' });
  beforeAll(async () => {
    const made = await backend();
    drop = made.drop;
    server = await startUsersServer({ storage: made.storage });
  });
  afterAll(async () => {
    await server?.close();
    await drop?.();
  });

  it('needs the master key', async () => {
    // Valid keys without the master key: the one coded refusal of master-only routes (fix 39.7).
    expect(await server.request('GET', '/1/schemas')).toMatchObject({ status: 403, body: { code: 11006 } });
    expect(await server.request('POST', '/1/schemas/Game', { body: { fields: {} } })).toMatchObject({ status: 403, body: { code: 11006 } });
  });

  it('creates a table with typed fields, indexes and permissions; the storage applies them', async () => {
    const created = await master('POST', '/1/schemas/Game', {
      className: 'Game',
      fields: { score: { type: 'Number' }, owner: { type: 'Pointer', targetClass: '_User' }, fans: { type: 'Relation', targetClass: '_User' }, where: { type: 'GeoPoint' } },
      indexes: { byScore: { score: -1 }, byOwner: { owner: 1, $unique: true } },
      classLevelPermissions: { find: { '*': true }, get: { '*': true }, create: { requiresAuthentication: true }, update: {}, delete: {}, count: { '*': true }, addField: {} },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      className: 'Game',
      fields: { objectId: { type: 'String' }, ACL: { type: 'ACL' }, score: { type: 'Number' }, owner: { type: 'Pointer', targetClass: '_User' }, fans: { type: 'Relation', targetClass: '_User' } },
      indexes: { byScore: { score: 1 }, byOwner: { owner: 1, $unique: true } },
      classLevelPermissions: { create: { requiresAuthentication: true } },
    });
    expect(await master('GET', '/1/schemas/Game')).toMatchObject({ status: 200, body: created.body });
    // The typed column exists: a value of another type is refused (111), the permissions apply.
    const user = await server.signUp({ username: 'player', password: 'pw' });
    expect((await server.as(user.sessionToken, 'POST', '/1/classes/Game', { score: 'high' })).body.code).toBe(111);
    expect((await server.request('POST', '/1/classes/Game', { body: { score: 1 } })).body.code).toBe(11171);
    expect((await server.as(user.sessionToken, 'POST', '/1/classes/Game', { score: 1 })).status).toBe(201);
    expect((await server.as(user.sessionToken, 'POST', '/1/classes/Game', { score: 2, extra: 1 })).body.code).toBe(11171);
    const list = await master('GET', '/1/schemas');
    const names = list.body.results.map((s: { className: string }) => s.className);
    expect(names).toEqual(expect.arrayContaining(['Game', '_User']));
    expect(names).not.toContain('_ClassPermissions');
    // _ClassPermissions itself is master-only over /1/classes.
    expect((await server.request('GET', '/1/classes/_ClassPermissions')).body.code).toBe(11006);
  });

  it('adds fields and indexes, replaces permissions; refuses what it cannot do with coded errors', async () => {
    const put = await master('PUT', '/1/schemas/Game', { fields: { level: { type: 'Number' } }, indexes: { byLevel: { level: 1 } }, classLevelPermissions: { find: { requiresAuthentication: true } } });
    expect(put.status).toBe(200);
    expect(put.body.fields.level).toEqual({ type: 'Number' });
    expect(put.body.classLevelPermissions).toEqual({ find: { requiresAuthentication: true } });
    expect((await server.request('GET', '/1/classes/Game')).body.code).toBe(11171);
    const cases: Array<[string, string, unknown, number]> = [
      ['PUT', '/1/schemas/Game', { fields: { level: { type: 'Number' } } }, 10064],
      ['PUT', '/1/schemas/Game', { fields: { nothing: { __op: 'Delete' } } }, 10071],
      ['PUT', '/1/schemas/Game', { fields: { ACL: { __op: 'Delete' } } }, 10063],
      ['PUT', '/1/schemas/Game', { fields: { level: { __op: 'Delete' }, odd: { type: 'Banana' } } }, 10069],
      ['PUT', '/1/schemas/Game', { indexes: { noSuch: { __op: 'Delete' } } }, 11182],
      ['PUT', '/1/schemas/Game', { fields: { level: { __op: 'Delete' } }, indexes: { byLevelAgain: { level: 1 } } }, 11182],
      ['PUT', '/1/schemas/Game', { fields: { level: { __op: 'Delete' } }, classLevelPermissions: { find: 1 } }, 11170],
      ['PUT', '/1/schemas/Game', { className: 'Other' }, 10062],
      ['PUT', '/1/schemas/Game', { fields: { createdAt: { type: 'Date' } } }, 10063],
      ['PUT', '/1/schemas/Game', { fields: { ptr: { type: 'Pointer' } } }, 10065],
      ['PUT', '/1/schemas/Game', { fields: { odd: { type: 'Banana' } } }, 10069],
      ['PUT', '/1/schemas/Game', { fields: { "x'; DROP TABLE t; --": { type: 'String' } } }, 105],
      ['PUT', '/1/schemas/Game', { fields: { Level: { type: 'String' } } }, 11081],
      ['PUT', '/1/schemas/Game', { indexes: { bad: { fans: 1 } } }, 11182],
      ['PUT', '/1/schemas/Game', { indexes: { BYLEVEL: { level: 1 } } }, 11182],
      ['PUT', '/1/schemas/Game', { classLevelPermissions: { find: { '*': 'yes' } } }, 11170],
      ['PUT', '/1/schemas/Game', { surprise: 1 }, 11005],
      ['PUT', '/1/schemas/_User', { fields: { nick: { type: 'String' } } }, 10073],
      ['POST', '/1/schemas/_Role', { fields: {} }, 10073],
      ['POST', '/1/schemas/Game', { fields: {} }, 103],
      ['GET', '/1/schemas/Nope', undefined, 103],
      ['PUT', "/1/schemas/a'b", {}, 103],
      ['DELETE', '/1/schemas/Game', undefined, 10074],
      ['DELETE', '/1/schemas/_User', undefined, 10073],
      ['DELETE', '/1/schemas/Nope', undefined, 103],
    ];
    for (const [method, path, body, code] of cases) {
      const res = await master(method, path, body);
      expect([method, path, JSON.stringify(body), res.body.code]).toEqual([method, path, JSON.stringify(body), code]);
    }
    // Nothing refused was written: the schema is as the successful PUT left it.
    const after = (await master('GET', '/1/schemas/Game')).body;
    expect(Object.keys(after.fields).sort()).toEqual(['ACL', 'createdAt', 'fans', 'level', 'objectId', 'owner', 'score', 'updatedAt', 'where']);
    expect(Object.keys(after.indexes).sort()).toEqual(['byLevel', 'byOwner', 'byScore']);
    expect(after.classLevelPermissions).toEqual({ find: { requiresAuthentication: true } });
  });

  it('a transactional batch of a signed-in user resolves its roles and permissions inside the transaction', async () => {
    const user = await server.signUp({ username: 'batcher', password: 'pw' });
    await master('PUT', '/1/schemas/Game', { classLevelPermissions: { create: { requiresAuthentication: true }, addField: {} } });
    server.clock.advance(60_000); // past every cache: the lookups must read through the transaction
    const requests = [1, 2].map((score) => ({ method: 'POST', path: '/1/classes/Game', body: { score } }));
    const res = await server.as(user.sessionToken, 'POST', '/1/batch', { requests, transaction: true });
    expect(res.status).toBe(200);
    expect(res.body.every((item: object) => 'success' in item)).toBe(true);
    const refused = await server.request('POST', '/1/batch', { body: { requests, transaction: true } });
    expect(refused.body.code).toBe(11070);
    expect(refused.body.error).toContain('code 11171');
    await master('PUT', '/1/schemas/Game', { classLevelPermissions: { find: { requiresAuthentication: true } } });
  });

  it('a unique index over duplicate values answers 10075 and is not recorded', async () => {
    await master('POST', '/1/classes/Dup', { name: 'same' });
    await master('POST', '/1/classes/Dup', { name: 'same' });
    const res = await master('PUT', '/1/schemas/Dup', { indexes: { uniqueName: { name: 1, $unique: true } } });
    expect(res.body.code).toBe(10075);
    expect((await master('GET', '/1/schemas/Dup')).body.indexes).toEqual({});
  });

  it('removes fields (with their data and indexes), indexes and empty tables; the names can be used again', async () => {
    const created = await master('POST', '/1/schemas/Note', {
      fields: { title: { type: 'String' }, rank: { type: 'Number' }, at: { type: 'GeoPoint' }, fans: { type: 'Relation', targetClass: '_User' } },
      indexes: { byTitle: { title: 1, $unique: true }, byRank: { rank: 1 }, both: { rank: 1, title: 1 } },
      classLevelPermissions: { create: {} },
    });
    expect(created.status).toBe(201);
    const note = await master('POST', '/1/classes/Note', { title: 'first', rank: 1, at: { __type: 'GeoPoint', latitude: 1, longitude: 2 } });
    const put = await master('PUT', '/1/schemas/Note', { fields: { title: { __op: 'Delete' }, at: { __op: 'Delete' }, fans: { __op: 'Delete' } } });
    expect(put.status).toBe(200);
    expect(Object.keys(put.body.fields).sort()).toEqual(['ACL', 'createdAt', 'objectId', 'rank', 'updatedAt']);
    expect(put.body.indexes).toEqual({ byRank: { rank: 1 } });
    const read = await master('GET', `/1/classes/Note/${note.body.objectId}`);
    expect(read.body.title).toBeUndefined();
    expect(read.body.at).toBeUndefined();
    expect(read.body.rank).toBe(1);
    // Back with another type, and the unique index it had is gone.
    expect((await master('PUT', '/1/schemas/Note', { fields: { title: { type: 'Number' } } })).body.fields.title).toEqual({ type: 'Number' });
    expect((await master('POST', '/1/classes/Note', { title: 7 })).status).toBe(201);
    expect((await master('POST', '/1/classes/Note', { title: 7 })).status).toBe(201);
    expect((await master('GET', `/1/classes/Note?where=${encodeURIComponent('{"title":7}')}&count=1&limit=0`)).body.count).toBe(2);
    // An index dropped and made again under the same name in one request.
    const swapped = await master('PUT', '/1/schemas/Note', { indexes: { byRank: { __op: 'Delete' } } });
    expect(swapped.body.indexes).toEqual({});
    expect((await master('PUT', '/1/schemas/Note', { indexes: { byRank: { rank: -1, $unique: true } } })).body.indexes).toEqual({ byRank: { rank: 1, $unique: true } });
    // A table with records is not dropped (nothing changes); once emptied it is, with its permissions.
    const refused = await master('DELETE', '/1/schemas/Note');
    expect(refused.body).toMatchObject({ code: 10074 });
    expect(refused.body.error).toContain('contains 3 objects');
    expect((await master('GET', '/1/schemas/Note')).status).toBe(200);
    const ids = (await master('GET', '/1/classes/Note')).body.results.map((r: { objectId: string }) => r.objectId);
    for (const id of ids) expect((await master('DELETE', `/1/classes/Note/${id}`)).status).toBe(200);
    expect(await master('DELETE', '/1/schemas/Note')).toMatchObject({ status: 200 });
    expect((await master('GET', '/1/schemas/Note')).body.code).toBe(103);
    expect((await master('GET', '/1/schemas')).body.results.map((r: { className: string }) => r.className)).not.toContain('Note');
    // The name starts afresh: no old columns, open permissions again.
    expect((await server.request('POST', '/1/classes/Note', { body: { title: 'text' } })).status).toBe(201);
    const fresh = (await master('GET', '/1/schemas/Note')).body;
    expect(fresh.fields.title).toEqual({ type: 'String' });
    expect(fresh.fields.rank).toBeUndefined();
    expect(fresh.classLevelPermissions.create).toEqual({ '*': true });
  });

  it('class-level permissions on _User are settable; its fields are not', async () => {
    const res = await master('PUT', '/1/schemas/_User', { classLevelPermissions: { find: {}, protectedFields: { '*': ['email'] } } });
    expect(res.status).toBe(200);
    expect((await server.request('GET', '/1/users')).body.code).toBe(11171);
    expect((await master('PUT', '/1/schemas/_User', { classLevelPermissions: null })).status).toBe(200);
    expect((await server.request('GET', '/1/users')).status).toBe(200);
  });
});

describe('the schema lock', () => {
  let server: UsersServer;
  beforeAll(async () => {
    server = await startUsersServer({ settings: { schema: { locked: true } } });
  });
  afterAll(() => server.close());

  it('only the master key creates tables or columns; clients write the existing ones', async () => {
    const refused = await server.request('POST', '/1/classes/Post', { body: { title: 'x' } });
    expect([refused.status, refused.body.code]).toEqual([403, 11180]);
    expect((await server.request('GET', '/1/classes/Post')).body).toEqual({ results: [] });
    expect((await server.request('POST', '/1/schemas/Post', { body: { fields: { title: { type: 'String' } } }, auth: 'master' })).status).toBe(201);
    expect((await server.request('POST', '/1/classes/Post', { body: { title: 'x' } })).status).toBe(201);
    expect((await server.request('POST', '/1/classes/Post', { body: { title: 'x', body: 'new column' } })).body.code).toBe(11180);
    expect((await server.request('POST', '/1/classes/Post', { body: { title: 'x', ACL: { '*': { read: true } } } })).status).toBe(201);
    const batch = await server.request('POST', '/1/batch', { body: { requests: [{ method: 'POST', path: '/1/classes/Other', body: { a: 1 } }] } });
    expect(batch.body[0].error.code).toBe(11180);
    expect((await server.request('POST', '/1/classes/Post', { body: { title: 'y', other: 1 }, auth: 'master' })).status).toBe(201);
  });

  it('sign-up and user updates may not add columns either', async () => {
    expect((await server.request('POST', '/1/users', { body: { username: 'a', password: 'pw', nick: 'x' } })).body.code).toBe(11180);
    const user = await server.signUp({ username: 'b', password: 'pw' });
    expect((await server.as(user.sessionToken, 'PUT', `/1/users/${user.objectId}`, { nick: 'x' })).body.code).toBe(11180);
    expect((await server.as(user.sessionToken, 'PUT', `/1/users/${user.objectId}`, { email: 'b@example.test' })).status).toBe(200);
  });
});

/**
 * Regression (defect 7, D226): sign-up and user updates never asked access/ for `addField`, so a
 * closed `addField` on `_User` did not stop a client adding columns to it. They now ask what every
 * other table's writes ask (the same access/ function): 11171, and nothing written.
 */
describe("_User's addField permission", () => {
  let server: UsersServer;
  let ann: { objectId: string; sessionToken: string };
  const master = (method: string, path: string, body?: unknown) => server.request(method, path, { body, auth: 'master' });
  const userColumns = async () => Object.keys((await master('GET', '/1/schemas/_User')).body.fields).sort();
  const users = async () => ((await master('GET', '/1/users')).body.results as Array<{ username: string }>).map((u) => u.username).sort();
  const refusal = (className: string) => ({ status: 403, body: { code: 11171, error: `permission denied for addField on class '${className}'.` } });
  beforeAll(async () => {
    server = await startUsersServer();
    ann = await server.signUp({ username: 'ann', password: 'pw' });
  });
  afterAll(() => server.close());

  it('closed (master key only): user updates and sign-ups that add a column answer 11171 as on any table, and write nothing', async () => {
    const note = (await server.as(ann.sessionToken, 'POST', '/1/classes/Note', { t: 'x' })).body.objectId as string;
    for (const table of ['Note', '_User']) expect((await master('PUT', `/1/schemas/${table}`, { classLevelPermissions: { addField: {} } })).status).toBe(200);
    const columns = await userColumns();
    const seen = (res: { status: number; body: unknown }) => ({ status: res.status, body: res.body });
    expect(seen(await server.as(ann.sessionToken, 'PUT', `/1/classes/Note/${note}`, { newCol: 1 }))).toEqual(refusal('Note'));
    expect(seen(await server.as(ann.sessionToken, 'PUT', `/1/users/${ann.objectId}`, { isAdmin: true }))).toEqual(refusal('_User'));
    expect(seen(await server.as(ann.sessionToken, 'PUT', `/1/classes/_User/${ann.objectId}`, { role2: 'x' }))).toEqual(refusal('_User'));
    expect(seen(await server.request('POST', '/1/users', { body: { username: 'carl', password: 'pw', plan: 'gold' } }))).toEqual(refusal('_User'));
    expect(seen(await server.request('POST', '/1/classes/_User', { body: { username: 'dora', password: 'pw', plan: 'gold' } }))).toEqual(refusal('_User'));
    const phone = '13800138077';
    const byPhone = await server.request('POST', '/1/usersv1', { body: { mobilePhoneNumber: phone, smsCode: await server.smsCode(phone), nickname: 'N' } });
    expect(seen(byPhone)).toEqual(refusal('_User'));
    expect(await userColumns()).toEqual(columns);
    expect(await users()).toEqual(['ann']);
    expect((await master('GET', `/1/users/${ann.objectId}`)).body).not.toHaveProperty('isAdmin');
    // Existing columns stay writable; the master key adds columns, which clients may then write.
    expect((await server.as(ann.sessionToken, 'PUT', `/1/users/${ann.objectId}`, { email: 'ann@example.test' })).status).toBe(200);
    expect((await server.request('POST', '/1/users', { body: { username: 'erin', password: 'pw' } })).status).toBe(201);
    expect((await master('PUT', `/1/users/${ann.objectId}`, { nick: 'a' })).status).toBe(200);
    expect((await server.as(ann.sessionToken, 'PUT', `/1/users/${ann.objectId}`, { nick: 'b' })).status).toBe(200);
    expect((await server.request('POST', '/1/users', { body: { username: 'fay', password: 'pw', nick: 'f' } })).status).toBe(201);
  });

  it('signed-in users only: an anonymous sign-up may not add a column and creates nothing; a signed-in update may', async () => {
    expect((await master('PUT', '/1/schemas/_User', { classLevelPermissions: { addField: { requiresAuthentication: true } } })).status).toBe(200);
    const before = await users();
    const signUp = await server.request('POST', '/1/users', { body: { username: 'gus', password: 'pw', tier: 'gold' } });
    expect({ status: signUp.status, body: signUp.body }).toEqual(refusal('_User'));
    expect(await users()).toEqual(before);
    expect(await userColumns()).not.toContain('tier');
    expect((await server.as(ann.sessionToken, 'PUT', `/1/users/${ann.objectId}`, { tier: 'gold' })).status).toBe(200);
    expect(await userColumns()).toContain('tier');
    expect((await master('PUT', '/1/schemas/_User', { classLevelPermissions: null })).status).toBe(200);
  });
});
