import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type UsersServer, startUsersServer } from './users-server.js';

let s: UsersServer;
let ann: { objectId: string; sessionToken: string };
let bob: { objectId: string; sessionToken: string };
beforeEach(async () => {
  s = await startUsersServer();
  ann = await s.signUp({ username: 'ann', password: 'pw', email: 'ann@example.com' });
  bob = await s.signUp({ username: 'bob', password: 'pw' });
});
afterEach(async () => s.close());

type Caller = 'anonymous' | 'other user' | 'own token' | 'master key';
const CALLERS: Caller[] = ['anonymous', 'other user', 'own token', 'master key'];

function send(caller: Caller, method: string, path: string, body?: unknown) {
  const headers: Record<string, string> = {};
  if (caller === 'other user') headers['X-Svc-Session-Token'] = bob.sessionToken;
  if (caller === 'own token') headers['X-Svc-Session-Token'] = ann.sessionToken;
  return s.request(method, path, { body, headers, auth: caller === 'master key' ? 'master' : true });
}

for (const base of ['/1/users', '/1/classes/_User']) {
  describe(`protection matrix on ${base}/:id`, () => {
    for (const caller of CALLERS) {
      const allowed = caller === 'own token' || caller === 'master key';

      it(`${caller}: read is allowed and never shows the password`, async () => {
        const res = await send(caller, 'GET', `${base}/${ann.objectId}`);
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({ objectId: ann.objectId, username: 'ann' });
        expect(res.body).not.toHaveProperty('password');
        expect(res.body).not.toHaveProperty('sessionToken');
        expect(res.text).not.toContain('scrypt');
      });

      it(`${caller}: update is ${allowed ? 'allowed' : 'refused with 206'}`, async () => {
        const res = await send(caller, 'PUT', `${base}/${ann.objectId}`, { nickname: caller });
        const after = (await s.request('GET', `/1/users/${ann.objectId}`)).body;
        if (allowed) {
          expect(res.status).toBe(200);
          expect(Object.keys(res.body)).toEqual(['updatedAt']);
          expect(after.nickname).toBe(caller);
        } else {
          expect(res.status).toBe(400);
          expect(res.body.code).toBe(206);
          expect(after).not.toHaveProperty('nickname');
        }
      });

      it(`${caller}: delete is ${allowed ? 'allowed' : 'refused with 206'}`, async () => {
        const res = await send(caller, 'DELETE', `${base}/${ann.objectId}`);
        const after = await s.request('GET', `/1/users/${ann.objectId}`);
        if (allowed) {
          expect(res.body).toEqual({ msg: 'ok' });
          expect(after.status).toBe(404);
        } else {
          expect(res.body.code).toBe(206);
          expect(after.status).toBe(200);
        }
      });
    }

    it('an expired or unknown token is refused with 206 too', async () => {
      expect((await s.as('0'.repeat(64), 'PUT', `${base}/${ann.objectId}`, { nickname: 'x' })).body.code).toBe(206);
      s.clock.advance(7 * 24 * 3600 * 1000);
      expect((await s.as(ann.sessionToken, 'DELETE', `${base}/${ann.objectId}`)).body.code).toBe(206);
    });

    it('a missing user is 101 (404) for read, and for update/delete with the master key', async () => {
      expect((await s.request('GET', `${base}/nope123456`)).status).toBe(404);
      expect((await s.request('PUT', `${base}/nope123456`, { body: { a: 1 }, auth: 'master' })).body.code).toBe(101);
      expect((await s.request('DELETE', `${base}/nope123456`, { auth: 'master' })).body.code).toBe(101);
    });

    it('updates hash passwords and enforce unique username/email/phone (202/203/209)', async () => {
      const put = (body: object) => s.as(ann.sessionToken, 'PUT', `${base}/${ann.objectId}`, body);
      expect((await put({ username: 'bob' })).body.code).toBe(202);
      await s.as(bob.sessionToken, 'PUT', `/1/users/${bob.objectId}`, { email: 'bob@example.com', mobilePhoneNumber: '13900139000' });
      expect((await put({ email: 'bob@example.com' })).body.code).toBe(203);
      expect((await put({ mobilePhoneNumber: '13900139000' })).body.code).toBe(209);
      expect((await put({ username: 'ann' })).status).toBe(200); // unchanged value is not a conflict
      expect((await put({ password: 'pw-2' })).status).toBe(200);
      expect((await s.request('GET', '/1/login?username=ann&password=pw-2')).status).toBe(200);
    });
  });
}

describe('/1/classes/_User writes follow the user rules', () => {
  it('create hashes the password, refuses duplicates, and the user can log in', async () => {
    const res = await s.request('POST', '/1/classes/_User', { body: { username: 'cat', password: 'cat-pw', age: 3 } });
    expect(res.status).toBe(201);
    expect((await s.request('POST', '/1/classes/_User', { body: { username: 'cat', password: 'x' } })).body.code).toBe(202);
    expect((await s.request('POST', '/1/classes/_User', { body: { username: 'dog', password: 'x', email: 'ann@example.com' } })).body.code).toBe(203);
    expect((await s.request('POST', '/1/classes/_User', { body: { username: 'dog' } })).body.code).toBe(201);
    const login = await s.request('GET', '/1/login?username=cat&password=cat-pw');
    expect(login.body).toMatchObject({ username: 'cat', age: 3 });
  });

  it('refuses batches on the user table', async () => {
    const res = await s.request('POST', '/1/batch', {
      body: { requests: [{ method: 'PUT', path: `/1/users/${ann.objectId}`, body: { a: 1 }, token: ann.sessionToken }] },
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(11071);
    const viaClasses = await s.request('POST', '/1/batch', {
      body: { requests: [{ method: 'POST', path: '/1/classes/_User', body: { username: 'x', password: 'y' } }] },
      auth: 'master',
    });
    expect(viaClasses.status).toBe(400);
    expect(viaClasses.body.code).toBe(11071);
    expect((await s.request('GET', '/1/users')).body.results).toHaveLength(2);
  });

  it('/1/classes/_Session needs the master key for everything', async () => {
    expect((await s.request('POST', '/1/classes/_Session', { body: { tokenHash: 'x', userId: ann.objectId } })).body.code).toBe(11006);
    expect((await s.request('GET', '/1/classes/_Session/abc')).body.code).toBe(11006);
    expect((await s.request('DELETE', '/1/classes/_Session/abc')).body.code).toBe(11006);
  });
});

describe('GET /1/users', () => {
  it('lists users without passwords, 100 a page by default', async () => {
    for (let i = 0; i < 105; i++) await s.request('POST', '/1/classes/_User', { body: { username: `u${i}`, password: 'pw' }, auth: 'master' });
    const page = await s.request('GET', '/1/users');
    expect(page.status).toBe(200);
    expect(page.body.results).toHaveLength(100);
    expect(page.text).not.toContain('scrypt');
    expect(page.text).not.toContain('password');
    expect(page.text).not.toContain('sessionToken');
    const rest = await s.request('GET', '/1/users?skip=100');
    expect(rest.body.results).toHaveLength(7);
  });

  it('takes the query engine parameters: where, order, keys, count, include', async () => {
    const q = (params: Record<string, string>) => s.request('GET', `/1/users?${new URLSearchParams(params)}`);
    await s.as(ann.sessionToken, 'PUT', `/1/users/${ann.objectId}`, { age: 30, friend: { __type: 'Pointer', className: '_User', objectId: bob.objectId } });
    await s.as(bob.sessionToken, 'PUT', `/1/users/${bob.objectId}`, { age: 20 });
    expect((await q({ where: JSON.stringify({ age: { $gt: 25 } }) })).body.results.map((u: { username: string }) => u.username)).toEqual(['ann']);
    expect((await q({ order: '-age' })).body.results.map((u: { username: string }) => u.username)).toEqual(['ann', 'bob']);
    expect(Object.keys((await q({ keys: 'age' })).body.results[0]).sort()).toEqual(['age', 'createdAt', 'objectId', 'updatedAt']);
    expect((await q({ count: '1', limit: '0' })).body).toEqual({ results: [], count: 2 });
    const included = await q({ where: JSON.stringify({ username: 'ann' }), include: 'friend' });
    expect(included.body.results[0].friend).toMatchObject({ __type: 'Object', className: '_User', objectId: bob.objectId, username: 'bob' });
    expect(included.text).not.toContain('scrypt');
  });

  it('refuses queries that name password anywhere (no hash oracle)', async () => {
    const q = (params: Record<string, string>) => s.request('GET', `/1/users?${new URLSearchParams(params)}`, { auth: 'master' });
    const attempts: Array<Record<string, string>> = [
      { where: JSON.stringify({ password: { $regex: '^scrypt' } }) },
      { where: JSON.stringify({ password: { $exists: true } }) },
      { where: JSON.stringify({ $or: [{ username: 'ann' }, { 'password.x': 1 }] }) },
      { where: JSON.stringify({ username: { $select: { query: { className: '_User', where: {} }, key: 'password' } } }) },
      { order: '-password' },
      { keys: 'username,password' },
      { groupby: 'password' },
      { max: 'password' },
    ];
    for (const params of attempts) {
      const res = await q(params);
      expect(res.status, JSON.stringify(params)).toBe(400);
      expect(res.body.code).toBe(102);
      expect(res.text).not.toContain('scrypt$');
    }
  });
});

