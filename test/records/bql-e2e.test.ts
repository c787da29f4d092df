import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type UsersServer, startUsersServer } from '../users/users-server.js';

/** `GET /1/cloudQuery` over real HTTP: BQL runs as the caller through the list service's rules. */
describe('BQL over HTTP (/1/cloudQuery)', () => {
  let server: UsersServer;
  const bql = (text: string, values?: unknown[], token: string | null = null) =>
    server.as(token, 'GET', `/1/cloudQuery?bql=${encodeURIComponent(text)}${values ? `&values=${encodeURIComponent(JSON.stringify(values))}` : ''}`);

  beforeAll(async () => {
    server = await startUsersServer();
    for (const [name, score] of [['ann', 10], ['bob', 30], ['cy', 20], ["o'brien", 40]] as const) {
      await server.request('POST', '/1/classes/Player', { body: { name, score } });
    }
    await server.request('POST', '/1/classes/Player', { body: { name: 'hidden', score: 99, ACL: {} }, auth: 'master' });
  });
  afterAll(() => server.close());

  it('selects with placeholders, order and limit a,b; counts; names its table', async () => {
    const page = await bql('select name from Player where score >= ? limit 1, 2 order by score desc', [20]);
    expect(page.status).toBe(200);
    expect(page.body.className).toBe('Player');
    expect(page.body.results.map((r: { name: string }) => r.name)).toEqual(['bob', 'cy']);
    expect(Object.keys(page.body.results[0]).sort()).toEqual(['createdAt', 'name', 'objectId', 'updatedAt']);
    expect((await bql('select count(*) from Player where score > 15')).body).toEqual({ results: [], count: 3, className: 'Player' });
    expect((await bql("select * from Player where name = 'o''brien'")).body.results).toHaveLength(1);
    expect((await bql('select * from Player where name in (?, ?)', ['ann', 'nobody'])).body.results).toHaveLength(1);
  });

  it('a bound value is a value: an object with operator keys bound to `= ?` matches nothing instead of becoming an operator', async () => {
    for (const hostile of [{ $ne: 'nobody' }, { $regex: '^b' }, { $exists: true }, { $gt: '' }]) {
      const page = await bql('select * from Player where name = ?', [hostile]);
      expect(page.body.results ?? [], JSON.stringify(hostile)).toEqual([]);
      expect(page.status, JSON.stringify(hostile)).toBeLessThan(500);
    }
    expect((await bql("select * from _User where username = ?", [{ $ne: 'x' }])).body.results ?? []).toEqual([]);
    // Typed values and plain scalars bound to `=` still compare as before.
    expect((await bql('select * from Player where name = ?', ['bob'])).body.results).toHaveLength(1);
  });

  it('applies ACLs and the list rules: an unreadable record is not counted, the password is not queryable', async () => {
    expect((await bql('select count(*) from Player')).body.count).toBe(4);
    await server.signUp({ username: 'u', password: 'pw' });
    expect((await bql("select * from _User where password = 'x'")).body.code).toBe(102);
    expect((await bql('select * from _Session')).body.code).toBe(11006);
  });

  it('bad statements and values answer 601; hostile names answer the list codes', async () => {
    expect(await bql('select * form Player')).toMatchObject({ status: 400, body: { code: 601 } });
    expect((await server.request('GET', '/1/cloudQuery?bql=select%20*%20from%20Player%20where%20a%3D%3F&values=nope')).body.code).toBe(601);
    expect((await bql('select * from Player where a = ?', [1, 2])).body.code).toBe(601);
    expect((await server.request('GET', '/1/cloudQuery')).body.code).toBe(601);
    expect((await bql('select * from __bad')).body.code).toBe(103);
    expect((await bql('select * from Player where __proto__ = 1')).body.code).toBe(102);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
