import { afterEach, describe, expect, it } from 'vitest';
import { memoryStorage } from '../../src/memory.js';
import { type UsersServer, startUsersServer } from './users-server.js';

const DAY = 24 * 60 * 60 * 1000;
let servers: UsersServer[] = [];
const start = async (...args: Parameters<typeof startUsersServer>) => {
  const s = await startUsersServer(...args);
  servers.push(s);
  return s;
};
afterEach(async () => {
  for (const s of servers.reverse()) await s.close();
  servers = [];
});

describe('session lifetime', () => {
  it('expires after 7 days by default (FakeClock): 211 on /users/me, fail on checkSession', async () => {
    const s = await start();
    const { objectId, sessionToken } = await s.signUp({ username: 'ann', password: 'pw' });
    s.clock.advance(7 * DAY - 1);
    expect((await s.as(sessionToken, 'GET', '/1/users/me')).status).toBe(200);
    s.clock.advance(1);
    expect((await s.as(sessionToken, 'GET', '/1/users/me')).body).toMatchObject({ code: 211 });
    expect((await s.as(sessionToken, 'GET', `/1/checkSession/${objectId}`)).body).toEqual({ msg: 'fail' });
    expect((await s.as(sessionToken, 'PUT', `/1/users/${objectId}`, { nickname: 'x' })).body.code).toBe(206);
  });

  it('follows the users.sessionTtlMs setting', async () => {
    const s = await start({ settings: { users: { sessionTtlMs: 60_000 } } });
    const { sessionToken } = await s.signUp({ username: 'ann', password: 'pw' });
    s.clock.advance(60_000);
    expect((await s.as(sessionToken, 'GET', '/1/users/me')).body.code).toBe(211);
  });

  it('survives a restart: a new service on the same storage accepts the token', async () => {
    const storage = memoryStorage();
    const first = await startUsersServer({ storage });
    const { sessionToken } = await first.signUp({ username: 'ann', password: 'pw' });
    const second = await start({ storage });
    expect((await second.as(sessionToken, 'GET', '/1/users/me')).body.username).toBe('ann');
    // Revocation through one instance is seen by the other at once (no cache).
    await first.as(sessionToken, 'POST', '/1/logout');
    expect((await second.as(sessionToken, 'GET', '/1/users/me')).body.code).toBe(211);
    first.server.closeAllConnections();
    await new Promise<void>((resolve) => first.server.close(() => resolve()));
  });
});

describe('revocation on password change', () => {
  it('updatePassword keeps the session making the change and revokes the others', async () => {
    const s = await start();
    const { sessionToken: current } = await s.signUp({ username: 'ann', password: 'old-pw' });
    const other = (await s.request('GET', '/1/login?username=ann&password=old-pw')).body.sessionToken;
    const res = await s.as(current, 'PUT', '/1/updatePassword', { oldPassword: 'old-pw', newPassword: 'new-pw' });
    expect(res.body).toEqual({ msg: 'ok' });
    expect((await s.as(current, 'GET', '/1/users/me')).status).toBe(200);
    expect((await s.as(other, 'GET', '/1/users/me')).body.code).toBe(211);
  });

  it('PUT /1/users/:id with a password: own token keeps its session, the master key revokes all', async () => {
    const s = await start();
    const { objectId, sessionToken: current } = await s.signUp({ username: 'ann', password: 'old-pw' });
    const other = (await s.request('GET', '/1/login?username=ann&password=old-pw')).body.sessionToken;
    expect((await s.as(current, 'PUT', `/1/users/${objectId}`, { password: 'pw2' })).status).toBe(200);
    expect((await s.as(current, 'GET', '/1/users/me')).status).toBe(200);
    expect((await s.as(other, 'GET', '/1/users/me')).body.code).toBe(211);
    expect((await s.request('PUT', `/1/users/${objectId}`, { body: { password: 'pw3' }, auth: 'master' })).status).toBe(200);
    expect((await s.as(current, 'GET', '/1/users/me')).body.code).toBe(211);
    expect((await s.request('GET', '/1/login?username=ann&password=pw3')).status).toBe(200);
  });

  it('deleting a user revokes its sessions', async () => {
    const s = await start();
    const { objectId, sessionToken } = await s.signUp({ username: 'ann', password: 'pw' });
    expect((await s.as(sessionToken, 'DELETE', `/1/users/${objectId}`)).body).toEqual({ msg: 'ok' });
    expect((await s.as(sessionToken, 'GET', '/1/users/me')).body.code).toBe(211);
    expect(await s.users.deps.sessions.list(s.service.applications.get('test-app')!, objectId)).toEqual([]);
  });
});
