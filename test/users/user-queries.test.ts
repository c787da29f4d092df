import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type UsersServer, startUsersServer } from './users-server.js';

let s: UsersServer;
let ann: { objectId: string; sessionToken: string };
beforeEach(async () => {
  s = await startUsersServer();
  ann = await s.signUp({ username: 'ann', password: 'pw', email: 'ann@example.com' });
  await s.request('POST', '/1/classes/Post', { body: { title: 'Hello', author: { __type: 'Pointer', className: '_User', objectId: ann.objectId } } });
});
afterEach(async () => s.close());

const q = (params: Record<string, unknown>) =>
  new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, typeof v === 'object' ? JSON.stringify(v) : String(v)])).toString();

describe('the user table through /1/classes', () => {
  it('GET /1/classes/_User lists users without passwords', async () => {
    const res = await s.request('GET', '/1/classes/_User');
    expect(res.status).toBe(200);
    expect(res.body.results).toHaveLength(1);
    expect(res.body.results[0]).toMatchObject({ username: 'ann' });
    expect(res.text).not.toContain('scrypt');
    expect(res.text).not.toContain('password');
  });

  it('include of a _User pointer from another table never shows the password', async () => {
    const list = await s.request('GET', `/1/classes/Post?${q({ include: 'author' })}`);
    expect(list.body.results[0].author).toMatchObject({ __type: 'Object', className: '_User', username: 'ann' });
    expect(list.text).not.toContain('scrypt');
    const id = list.body.results[0].objectId as string;
    const one = await s.request('GET', `/1/classes/Post/${id}?include=author`);
    expect(one.body.author.username).toBe('ann');
    expect(one.text).not.toContain('scrypt');
  });

  it('no password oracle: _User lists and other tables inner queries naming password are refused (102)', async () => {
    const attempts = [
      `/1/classes/_User?${q({ where: { password: { $regex: '^scrypt' } } })}`,
      `/1/classes/_User?${q({ order: 'password' })}`,
      `/1/classes/_User?${q({ groupby: 'password' })}`,
      `/1/classes/Post?${q({ where: { author: { $inQuery: { className: '_User', where: { password: { $regex: '^scrypt' } } } } } })}`,
      `/1/classes/Post?${q({ where: { title: { $select: { query: { className: '_User', where: {} }, key: 'password' } } } })}`,
    ];
    for (const path of attempts) {
      for (const auth of [true, 'master'] as const) {
        const res = await s.request('GET', path, { auth });
        expect(res.body.code, path).toBe(102);
      }
    }
    // Inner queries on other _User columns still work.
    const ok = await s.request('GET', `/1/classes/Post?${q({ where: { author: { $inQuery: { className: '_User', where: { username: 'ann' } } } } })}`);
    expect(ok.body.results).toHaveLength(1);
  });

  it('_Session is unreadable without the master key, also through inner queries and include', async () => {
    expect((await s.request('GET', '/1/classes/_Session')).body.code).toBe(11006);
    const inner = `where=${encodeURIComponent(JSON.stringify({ title: { $select: { query: { className: '_Session', where: {} }, key: 'userId' } } }))}`;
    expect((await s.request('GET', `/1/classes/Post?${inner}`)).body.code).toBe(11006);
    expect((await s.request('GET', `/1/users?${inner}`)).body.code).toBe(11006);
    const master = await s.request('GET', '/1/classes/_Session', { auth: 'master' });
    expect(master.body.results).toHaveLength(1);
    expect(master.text).not.toContain(ann.sessionToken);
  });
});
