import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/core/secrets.js';
import { memoryStorage } from '../../src/memory.js';
import { type UsersServer, startUsersServer } from './users-server.js';

let s: UsersServer;
beforeEach(async () => {
  s = await startUsersServer();
});
afterEach(async () => s.close());

const ann = { username: 'ann', password: 'pw-ann-1', email: 'ann@example.com', mobilePhoneNumber: '13800138000' };

describe('sign-up (POST /1/users)', () => {
  it('answers 201 {createdAt, objectId, sessionToken} with a Location header', async () => {
    const res = await s.request('POST', '/1/users', { body: { ...ann, nickname: 'Annie' } });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['createdAt', 'objectId', 'sessionToken']);
    expect(res.body.createdAt).toBe('2026-01-01 00:00:00');
    expect(res.body.objectId).toMatch(/^[0-9A-Za-z]{10}$/);
    expect(res.body.sessionToken).toMatch(/^[0-9a-f]{64}$/);
    expect(res.headers.get('location')).toBe(`${s.url}/1/users/${res.body.objectId}`);
    const read = await s.request('GET', `/1/users/${res.body.objectId}`);
    expect(read.body).toMatchObject({ username: 'ann', email: 'ann@example.com', nickname: 'Annie', mobilePhoneNumber: '13800138000' });
    expect(read.body).not.toHaveProperty('password');
    expect(read.body).not.toHaveProperty('sessionToken');
    expect(read.body).not.toHaveProperty('emailVerified');
  });

  it('refuses an empty body (107), a missing username or password (201)', async () => {
    expect((await s.request('POST', '/1/users', { body: {} })).body.code).toBe(107);
    expect((await s.request('POST', '/1/users', { body: { password: 'x' } })).body).toEqual({ code: 201, error: "'username' missing." });
    expect((await s.request('POST', '/1/users', { body: { username: 'x' } })).body).toEqual({ code: 201, error: "'password' missing." });
  });

  it('refuses duplicates: username 202, email 203, phone 209', async () => {
    await s.signUp(ann);
    const dup = (body: object) => s.request('POST', '/1/users', { body: { username: 'other', password: 'pw', ...body } });
    expect((await dup({ username: 'ann' })).body).toEqual({ code: 202, error: "username 'ann' already taken." });
    expect((await dup({ email: 'ann@example.com' })).body).toEqual({ code: 203, error: "email 'ann@example.com' already taken." });
    expect((await dup({ mobilePhoneNumber: '13800138000' })).body).toEqual({ code: 209, error: "mobilePhoneNumber '13800138000' already taken." });
    expect((await dup({})).status).toBe(201);
  });

  it('concurrent sign-ups with one username: exactly one succeeds, the others get 202', async () => {
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => s.request('POST', '/1/users', { body: { username: 'race', password: `pw${i}` } })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status !== 201).map((r) => r.body.code)).toEqual(Array(7).fill(202));
    const list = await s.request('GET', '/1/users', { auth: 'master' });
    expect(list.body.results.filter((u: { username: string }) => u.username === 'race')).toHaveLength(1);
  });

  // Regression: a race lost in storage on /1/classes/_User used to surface as the index's 401.
  // Inserts yield to the event loop first, as a network database would, so every racer passes the
  // availability check before any insert lands.
  it('concurrent creates through /1/classes/_User: one 201, the others 202 (not the storage 401)', async () => {
    const inner = memoryStorage();
    const slow = new Proxy(inner, {
      get: (target, key) =>
        key === 'insert'
          ? async (...args: Parameters<typeof inner.insert>) => {
              await new Promise((resolve) => setImmediate(resolve));
              return target.insert(...args);
            }
          : Reflect.get(target, key),
    });
    const racing = await startUsersServer({ storage: slow });
    try {
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) => racing.request('POST', '/1/classes/_User', { body: { username: 'race2', password: `pw${i}` } })),
      );
      expect(results.filter((r) => r.status === 201)).toHaveLength(1);
      expect(results.filter((r) => r.status !== 201).map((r) => r.body.code)).toEqual(Array(7).fill(202));
    } finally {
      await racing.close();
    }
  });

  it('refuses unverifiable authData sign-up and client-set verification flags', async () => {
    // No mini-program configured: the weapp identity cannot be verified (11205); other platforms have no provider (208).
    expect((await s.request('POST', '/1/users', { body: { authData: { weapp: { openid: 'x', sk: 'y' } } } })).body.code).toBe(11205);
    expect((await s.request('POST', '/1/users', { body: { authData: { weapp: { openid: 'x' } } } })).body.code).toBe(208);
    expect((await s.request('POST', '/1/users', { body: { authData: { qq: { openid: 'x', access_token: 't' } } } })).body.code).toBe(208);
    expect((await s.request('POST', '/1/users', { body: { ...ann, emailVerified: true } })).body.code).toBe(105);
    expect((await s.request('POST', '/1/users', { body: { ...ann, mobilePhoneVerified: true } })).body.code).toBe(105);
  });
});

describe('login', () => {
  beforeEach(async () => {
    await s.signUp(ann);
  });

  it('GET /1/login with username, email or phone in `username` returns the user with a new session token', async () => {
    for (const id of ['ann', 'ann@example.com', '13800138000']) {
      const res = await s.request('GET', `/1/login?username=${encodeURIComponent(id)}&password=pw-ann-1`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ username: 'ann', email: 'ann@example.com', mobilePhoneNumber: '13800138000' });
      expect(res.body.sessionToken).toMatch(/^[0-9a-f]{64}$/);
      expect(res.body).not.toHaveProperty('password');
      expect(Object.keys(res.body)).toEqual(expect.arrayContaining(['objectId', 'createdAt', 'updatedAt', 'username', 'sessionToken']));
    }
  });

  it('POST /1/login takes JSON with username, email or mobilePhoneNumber', async () => {
    for (const body of [{ username: 'ann' }, { email: 'ann@example.com' }, { mobilePhoneNumber: '13800138000' }]) {
      const res = await s.request('POST', '/1/login', { body: { ...body, password: 'pw-ann-1' } });
      expect(res.status).toBe(200);
      expect(res.body.username).toBe('ann');
    }
  });

  it('answers the same 101 for a wrong password and an unknown user', async () => {
    const wrong = await s.request('GET', '/1/login?username=ann&password=nope');
    const unknown = await s.request('GET', '/1/login?username=bob&password=nope');
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual({ code: 101, error: 'username or password incorrect.' });
    expect(unknown.body).toEqual(wrong.body);
    expect(unknown.status).toBe(wrong.status);
  });

  it('answers 109 without login data and 108 without one of username/password', async () => {
    expect((await s.request('GET', '/1/login')).body.code).toBe(109);
    expect((await s.request('GET', '/1/login?username=ann')).body.code).toBe(108);
    expect((await s.request('POST', '/1/login', { body: { password: 'x' } })).body.code).toBe(108);
  });

  it('each login is a separate session; the token is stored hashed', async () => {
    const a = (await s.request('GET', '/1/login?username=ann&password=pw-ann-1')).body.sessionToken;
    const b = (await s.request('GET', '/1/login?username=ann&password=pw-ann-1')).body.sessionToken;
    expect(a).not.toBe(b);
    const user = (await s.as(a, 'GET', '/1/users/me')).body;
    const stored = await s.users.deps.sessions.list(s.service.applications.get('test-app')!, user.objectId);
    expect(stored.length).toBe(3);
    for (const info of stored) expect([a, b]).not.toContain(info.sessionId);
    expect(stored.map((i) => i.sessionId)).toEqual(expect.arrayContaining([sha256Hex(a), sha256Hex(b)]));
    const rows = await s.service.context.storage.find(
      { namespace: 'test_app', className: '_Session' },
      { where: { kind: 'all_records' }, order: [], skip: 0, limit: 100, projection: { kind: 'all' } },
    );
    expect(JSON.stringify(rows)).not.toContain(a);
  });
});

describe('current user, logout, checkSession', () => {
  it('GET /1/users/me returns the user with the presenting token; 211 without one', async () => {
    const { objectId, sessionToken } = await s.signUp(ann);
    const me = await s.as(sessionToken, 'GET', '/1/users/me');
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ objectId, username: 'ann', sessionToken });
    expect(me.body).not.toHaveProperty('password');
    expect((await s.as(null, 'GET', '/1/users/me')).body.code).toBe(211);
    expect((await s.as('f'.repeat(64), 'GET', '/1/users/me')).body.code).toBe(211);
    expect((await s.as('bmob', 'GET', '/1/users/me')).body.code).toBe(211);
  });

  it('POST /1/logout revokes only the presenting session', async () => {
    const { sessionToken } = await s.signUp(ann);
    const other = (await s.request('GET', '/1/login?username=ann&password=pw-ann-1')).body.sessionToken;
    expect((await s.as(sessionToken, 'POST', '/1/logout')).body).toEqual({ msg: 'ok' });
    expect((await s.as(sessionToken, 'GET', '/1/users/me')).body.code).toBe(211);
    expect((await s.as(other, 'GET', '/1/users/me')).status).toBe(200);
    expect((await s.as(sessionToken, 'POST', '/1/logout')).body.code).toBe(211);
  });

  it('GET /1/checkSession/:id says ok only for a live session of that user', async () => {
    const a = await s.signUp(ann);
    const b = await s.signUp({ username: 'bob', password: 'pw' });
    expect((await s.as(a.sessionToken, 'GET', `/1/checkSession/${a.objectId}`)).body).toEqual({ msg: 'ok' });
    expect((await s.as(a.sessionToken, 'GET', `/1/checkSession/${b.objectId}`)).body).toEqual({ msg: 'fail' });
    expect((await s.as(null, 'GET', `/1/checkSession/${a.objectId}`)).body).toEqual({ msg: 'fail' });
    await s.as(a.sessionToken, 'POST', '/1/logout');
    const res = await s.as(a.sessionToken, 'GET', `/1/checkSession/${a.objectId}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ msg: 'fail' });
  });
});
