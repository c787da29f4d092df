import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqlite } from '../../src/sqlite.js';
import { type UsersServer, startUsersServer } from './users-server.js';

let dir: string | undefined;
let servers: UsersServer[] = [];
afterEach(async () => {
  for (const s of servers.reverse()) await s.close();
  servers = [];
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('users on SQLite storage', () => {
  it('sign-up, duplicates, concurrent sign-ups, login, password change and sessions across a restart', async () => {
    dir = mkdtempSync(join(tmpdir(), 'svcbase-users-'));
    const file = join(dir, 'app.db');
    const first = await startUsersServer({ storage: openSqlite(file) });
    servers.push(first);
    const ann = await first.signUp({ username: 'ann', password: 'pw', email: 'ann@example.com', mobilePhoneNumber: '13800138000' });
    const dup = (body: object) => first.request('POST', '/1/users', { body: { username: 'x', password: 'pw', ...body } });
    expect((await dup({ username: 'ann' })).body.code).toBe(202);
    expect((await dup({ email: 'ann@example.com' })).body.code).toBe(203);
    expect((await dup({ mobilePhoneNumber: '13800138000' })).body.code).toBe(209);
    const race = await Promise.all(Array.from({ length: 6 }, () => first.request('POST', '/1/users', { body: { username: 'race', password: 'pw' } })));
    expect(race.filter((r) => r.status === 201)).toHaveLength(1);
    expect((await first.request('GET', '/1/login?username=ann@example.com&password=pw')).status).toBe(200);
    const other = (await first.request('GET', '/1/login?username=ann&password=pw')).body.sessionToken as string;
    expect((await first.as(ann.sessionToken, 'PUT', '/1/updatePassword', { oldPassword: 'pw', newPassword: 'pw2' })).body).toEqual({ msg: 'ok' });
    expect((await first.as(other, 'GET', '/1/users/me')).body.code).toBe(211);
    await first.close();
    servers = [];

    const second = await startUsersServer({ storage: openSqlite(file) });
    servers.push(second);
    const me = await second.as(ann.sessionToken, 'GET', '/1/users/me');
    expect(me.body).toMatchObject({ objectId: ann.objectId, username: 'ann' });
    expect(me.text).not.toContain('scrypt');
    expect((await second.request('GET', '/1/login?username=ann&password=pw2')).status).toBe(200);
    second.clock.advance(7 * 24 * 3600 * 1000);
    expect((await second.as(ann.sessionToken, 'GET', '/1/users/me')).body.code).toBe(211);
  });
});
