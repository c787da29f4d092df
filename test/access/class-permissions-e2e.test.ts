import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClassPermissionSource } from '../../src/access/class-permission-source.js';
import { OPEN_CLASS, type ClassPermissions, parseClassPermissions } from '../../src/access/class-permissions.js';
import type { Json } from '../../src/core/wire-values.js';
import { FAST_SCRYPT } from '../users/users-server.js';
import { type TestServer, startTestServer } from '../helpers/server.js';

/**
 * Class-level permissions and protected fields over real HTTP, read through the service's
 * `classPermissions` source: each operation open, closed, for signed-in users or for a role; the
 * master key always passes; a protected field is neither shown nor queryable.
 */
describe('class-level permissions over HTTP', () => {
  let server: TestServer;
  const rules = new Map<string, ClassPermissions>();
  const source: ClassPermissionSource = { permissionsOf: async (table) => rules.get(table.className) ?? OPEN_CLASS };
  const set = (className: string, wire: Json) => rules.set(className, parseClassPermissions(wire));
  let ann = { objectId: '', sessionToken: '' };
  let mod = { objectId: '', sessionToken: '' };

  const as = (token: string | null, method: string, path: string, body?: unknown) =>
    server.request(method, path, { body, headers: token ? { 'X-Svc-Session-Token': token } : {} });

  beforeAll(async () => {
    server = await startTestServer({ captcha: false, users: { scrypt: FAST_SCRYPT }, classPermissions: source });
    const signUp = async (username: string) => (await server.request('POST', '/1/users', { body: { username, password: 'pw', email: `${username}@example.test` } })).body;
    ann = await signUp('ann');
    mod = await signUp('mod');
    await server.request('POST', '/1/roles', {
      auth: 'master',
      body: { name: 'mods', users: { __op: 'AddRelation', objects: [{ __type: 'Pointer', className: '_User', objectId: mod.objectId }] } },
    });
    await server.request('POST', '/1/classes/Post', { auth: 'master', body: { title: 'a', secret: 's1' } });
  });
  afterAll(() => server.close());

  it('each operation follows its rule: open, signed-in only, role only, master only', async () => {
    set('Post', { find: { '*': true }, get: { requiresAuthentication: true }, create: { 'role:mods': true }, update: {}, delete: { 'role:mods': true }, count: { '*': true }, addField: {} });
    const list = await as(null, 'GET', '/1/classes/Post');
    expect(list.status).toBe(200);
    const id = list.body.results[0].objectId as string;
    expect((await as(null, 'GET', `/1/classes/Post/${id}`)).body.code).toBe(11171);
    expect((await as(ann.sessionToken, 'GET', `/1/classes/Post/${id}`)).status).toBe(200);
    expect((await as(ann.sessionToken, 'POST', '/1/classes/Post', { title: 'b' })).body.code).toBe(11171);
    const created = await as(mod.sessionToken, 'POST', '/1/classes/Post', { title: 'b' });
    expect(created.status).toBe(201);
    // A new column needs addField (empty rule: master only), even for a role that may create.
    const widened = await as(mod.sessionToken, 'POST', '/1/classes/Post', { title: 'c', extra: 1 });
    expect([widened.status, widened.body.code]).toEqual([403, 11171]);
    expect((await as(mod.sessionToken, 'PUT', `/1/classes/Post/${id}`, { title: 'x' })).body.code).toBe(11171);
    expect((await server.request('PUT', `/1/classes/Post/${id}`, { body: { title: 'x' }, auth: 'master' })).status).toBe(200);
    expect((await as(ann.sessionToken, 'DELETE', `/1/classes/Post/${created.body.objectId}`)).body.code).toBe(11171);
    expect((await as(mod.sessionToken, 'DELETE', `/1/classes/Post/${created.body.objectId}`)).status).toBe(200);
    const count = await as(null, 'GET', '/1/classes/Post?count=1&limit=0');
    expect(count.body.count).toBe(1);
    // Nothing refused was written.
    const all = await server.request('GET', '/1/classes/Post', { auth: 'master' });
    expect(all.body.results.map((r: { title: string }) => r.title)).toEqual(['x']);
  });

  it('a protected field is hidden from reads, lists and include, and cannot be queried', async () => {
    set('Post', { protectedFields: { '*': ['secret'], 'role:mods': [] } });
    const list = await as(ann.sessionToken, 'GET', '/1/classes/Post');
    expect(list.body.results[0]).not.toHaveProperty('secret');
    const id = list.body.results[0].objectId as string;
    expect((await as(ann.sessionToken, 'GET', `/1/classes/Post/${id}`)).body).not.toHaveProperty('secret');
    // A role entry reveals what `*` hides (the intersection of the applicable lists).
    expect((await as(mod.sessionToken, 'GET', `/1/classes/Post/${id}`)).body.secret).toBe('s1');
    expect((await server.request('GET', `/1/classes/Post/${id}`, { auth: 'master' })).body.secret).toBe('s1');
    for (const query of [`where=${encodeURIComponent('{"secret":"s1"}')}`, 'order=secret', `where=${encodeURIComponent('{"secret":{"$exists":true}}')}&count=1`]) {
      const res = await as(ann.sessionToken, 'GET', `/1/classes/Post?${query}`);
      expect([query, res.body.code]).toEqual([query, 102]);
    }
    await server.request('POST', '/1/classes/Ref', { auth: 'master', body: { post: { __type: 'Pointer', className: 'Post', objectId: id } } });
    const refs = await as(ann.sessionToken, 'GET', '/1/classes/Ref?include=post');
    expect(refs.body.results[0].post).toMatchObject({ __type: 'Object', title: 'x' });
    expect(refs.body.results[0].post).not.toHaveProperty('secret');
    const inner = encodeURIComponent(JSON.stringify({ post: { $inQuery: { className: 'Post', where: { secret: 's1' } } } }));
    expect((await as(ann.sessionToken, 'GET', `/1/classes/Ref?where=${inner}`)).body.code).toBe(102);
  });

  it('the user table follows its class-level permissions and protected fields too', async () => {
    set('_User', { find: { requiresAuthentication: true }, protectedFields: { '*': ['email'] } });
    expect((await as(null, 'GET', '/1/users')).body.code).toBe(11171);
    const users = await as(ann.sessionToken, 'GET', '/1/users');
    expect(users.status).toBe(200);
    for (const user of users.body.results) expect(user).not.toHaveProperty('email');
    expect((await as(ann.sessionToken, 'GET', `/1/users/${mod.objectId}`)).body).not.toHaveProperty('email');
    expect((await server.request('GET', `/1/users/${mod.objectId}`, { auth: 'master' })).body.email).toBe('mod@example.test');
    // A sign-up is a create of `_User`: closed to everyone, it is refused and writes nothing; the master key still creates.
    set('_User', { create: {} });
    const refused = await as(null, 'POST', '/1/users', { username: 'eve', password: 'pw' });
    expect([refused.status, refused.body.code]).toEqual([403, 11171]);
    expect((await as(null, 'POST', '/1/classes/_User', { username: 'eve', password: 'pw' })).body.code).toBe(11171);
    expect((await server.request('POST', '/1/users', { auth: 'master', body: { username: 'eve', password: 'pw' } })).status).toBe(201);
    const eves = await server.request('GET', `/1/users?where=${encodeURIComponent('{"username":"eve"}')}`, { auth: 'master' });
    expect(eves.body.results).toHaveLength(1);
    rules.delete('_User');
  });

  it('pointer permissions: rows pointing to the caller are read, updated and deleted by it alone; never created through them', async () => {
    const annPtr = { __type: 'Pointer', className: '_User', objectId: ann.objectId };
    const modPtr = { __type: 'Pointer', className: '_User', objectId: mod.objectId };
    const mine = (await server.request('POST', '/1/classes/Task', { auth: 'master', body: { title: 'ann', owner: annPtr, crew: [modPtr] } })).body.objectId as string;
    const theirs = (await server.request('POST', '/1/classes/Task', { auth: 'master', body: { title: 'mod', owner: modPtr } })).body.objectId as string;
    set('Task', { get: {}, find: {}, count: {}, update: {}, delete: {}, create: {}, addField: {}, readUserFields: ['owner', 'crew'], writeUserFields: ['owner'] });
    const titles = async (token: string | null) => ((await as(token, 'GET', '/1/classes/Task?order=title')).body.results as Array<{ title: string }>).map((t) => t.title);
    expect(await titles(ann.sessionToken)).toEqual(['ann']);
    // An array of Pointers counts when it holds the caller.
    expect(await titles(mod.sessionToken)).toEqual(['ann', 'mod']);
    expect(await titles(null)).toEqual([]);
    expect((await as(null, 'GET', '/1/classes/Task?count=1&limit=0')).body.count).toBe(0);
    expect((await as(ann.sessionToken, 'GET', `/1/classes/Task/${theirs}`)).body.code).toBe(101);
    expect((await as(ann.sessionToken, 'GET', `/1/classes/Task/${mine}?keys=title`)).body).toMatchObject({ title: 'ann' });
    // Writes: writeUserFields names only owner, so mod (crew) reads but does not write ann's task.
    expect((await as(mod.sessionToken, 'PUT', `/1/classes/Task/${mine}`, { title: 'x' })).body.code).toBe(101);
    expect((await as(null, 'PUT', `/1/classes/Task/${mine}`, { title: 'x' })).body.code).toBe(101);
    expect((await as(ann.sessionToken, 'PUT', `/1/classes/Task/${mine}`, { title: 'ann2' })).status).toBe(200);
    // A new column on an update through pointer permissions is allowed (addField follows writeUserFields); a create is not.
    expect((await as(ann.sessionToken, 'PUT', `/1/classes/Task/${mine}`, { note: 'n' })).status).toBe(200);
    expect((await as(ann.sessionToken, 'POST', '/1/classes/Task', { title: 'new', owner: annPtr })).body.code).toBe(11171);
    expect((await as(ann.sessionToken, 'DELETE', `/1/classes/Task/${theirs}`)).body.code).toBe(101);
    expect((await as(mod.sessionToken, 'DELETE', `/1/classes/Task/${theirs}`)).body).toEqual({ msg: 'ok' });
    const left = await server.request('GET', '/1/classes/Task', { auth: 'master' });
    expect(left.body.results.map((t: { title: string; note?: string }) => [t.title, t.note ?? null])).toEqual([['ann2', 'n']]);
    // A per-operation pointerFields entry works alone.
    set('Task', { find: {}, get: { pointerFields: ['crew'] } });
    expect((await as(mod.sessionToken, 'GET', `/1/classes/Task/${mine}`)).status).toBe(200);
    expect((await as(ann.sessionToken, 'GET', `/1/classes/Task/${mine}`)).body.code).toBe(101);
    expect((await as(ann.sessionToken, 'GET', '/1/classes/Task')).body.code).toBe(11171);
    rules.delete('Task');
  });
});
