import { afterEach, describe, expect, it } from 'vitest';
import { type UsersServer, startUsersServer } from './users-server.js';

let s: UsersServer;
afterEach(async () => s?.close());

const MINUTE = 60_000;
const login = (username: string, password: string) => s.request('GET', `/1/login?username=${username}&password=${password}`);

describe('login throttling', () => {
  it('per account: the window fills with failed attempts, then 11050 with Retry-After, even for the right password', async () => {
    s = await startUsersServer({ settings: { users: { loginThrottle: { account: [{ limit: 3, windowMs: 10 * MINUTE }] } } } });
    await s.signUp({ username: 'ann', password: 'right', email: 'ann@example.com' });
    for (let i = 0; i < 3; i++) expect((await login('ann', 'wrong')).body.code).toBe(101);
    const blocked = await login('ann', 'right');
    expect(blocked.status).toBe(429);
    expect(blocked.body).toEqual({ code: 11050, error: 'too many login attempts, retry after 600 seconds.' });
    expect(blocked.headers.get('retry-after')).toBe('600');
    // Other identifiers of the same account share its counter.
    expect((await s.request('POST', '/1/login', { body: { email: 'ann@example.com', password: 'right' } })).body.code).toBe(11050);
    // Other accounts are not affected.
    await s.signUp({ username: 'bob', password: 'pw' });
    expect((await login('bob', 'pw')).status).toBe(200);
    s.clock.advance(10 * MINUTE);
    expect((await login('ann', 'right')).status).toBe(200);
  });

  it('a successful login resets the account counter', async () => {
    s = await startUsersServer({ settings: { users: { loginThrottle: { account: [{ limit: 3, windowMs: 10 * MINUTE }] } } } });
    await s.signUp({ username: 'ann', password: 'right' });
    await login('ann', 'wrong');
    await login('ann', 'wrong');
    expect((await login('ann', 'right')).status).toBe(200);
    await login('ann', 'wrong');
    await login('ann', 'wrong');
    expect((await login('ann', 'right')).status).toBe(200);
  });

  it('unknown accounts are throttled the same way (no enumeration by throttling)', async () => {
    s = await startUsersServer({ settings: { users: { loginThrottle: { account: [{ limit: 2, windowMs: MINUTE }] } } } });
    await login('ghost', 'x');
    await login('ghost', 'x');
    expect((await login('ghost', 'x')).body.code).toBe(11050);
  });

  it('per client address: many accounts from one address hit the address window', async () => {
    s = await startUsersServer({ settings: { users: { loginThrottle: { address: [{ limit: 5, windowMs: MINUTE }] } } } });
    for (let i = 0; i < 5; i++) expect((await login(`user${i}`, 'x')).body.code).toBe(101);
    const blocked = await login('user9', 'x');
    expect(blocked.body.code).toBe(11050);
    expect(blocked.headers.get('retry-after')).toBe('60');
    s.clock.advance(MINUTE);
    expect((await login('user9', 'x')).body.code).toBe(101);
  });

  it('can be disabled', async () => {
    s = await startUsersServer({ settings: { users: { loginThrottle: { enabled: false, account: [{ limit: 1, windowMs: MINUTE }] } } } });
    for (let i = 0; i < 5; i++) expect((await login('ann', 'x')).body.code).toBe(101);
  });
});
