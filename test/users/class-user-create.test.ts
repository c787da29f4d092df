import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type UsersServer, startUsersServer } from './users-server.js';

let s: UsersServer;
beforeEach(async () => {
  s = await startUsersServer();
});
afterEach(async () => s.close());

describe('fix 11.5: POST /1/classes/_User is a sign-up', () => {
  it('fix 11.5: POST /1/classes/_User answers like POST /1/users, with a working sessionToken', async () => {
    const viaUsers = await s.request('POST', '/1/users', { body: { username: 'ann', password: 'pw' } });
    const viaClasses = await s.request('POST', '/1/classes/_User', { body: { username: 'bob', password: 'pw' } });
    expect(viaClasses.status).toBe(201);
    expect(Object.keys(viaClasses.body).sort()).toEqual(Object.keys(viaUsers.body).sort());
    expect(viaClasses.body.sessionToken).toEqual(expect.any(String));
    expect(viaClasses.headers.get('location')).toBe(`${s.url}/1/classes/_User/${viaClasses.body.objectId}`);
    const me = await s.as(viaClasses.body.sessionToken, 'GET', '/1/users/me');
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ objectId: viaClasses.body.objectId, username: 'bob' });
  });

  it('fix 11.5: sign-up errors are the same on both paths', async () => {
    for (const body of [{}, { username: 'x' }, { password: 'x' }, { username: 'x', password: 'y', authData: {} }]) {
      const a = await s.request('POST', '/1/users', { body });
      const b = await s.request('POST', '/1/classes/_User', { body });
      expect(b.status, JSON.stringify(body)).toBe(a.status);
      expect(b.body.code, JSON.stringify(body)).toBe(a.body.code);
    }
  });
});
