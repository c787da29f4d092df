import { afterEach, describe, expect, it } from 'vitest';
import { LINK_BASE, type UsersServer, pathOf, startUsersServer } from './users-server.js';

const WEEK = 7 * 24 * 60 * 60 * 1000;
const ON = { features: { emailVerification: true } };
let s: UsersServer;
afterEach(async () => s?.close());

const field = async (id: string) => (await s.request('GET', `/1/users/${id}`)).body.emailVerified as boolean | undefined;
const follow = (link: string) => fetch(s.url + pathOf(link));

describe('emailVerified, row by row', () => {
  it('missing while the feature is off: no field, no mail, even with an email', async () => {
    s = await startUsersServer();
    const { objectId } = await s.signUp({ username: 'ann', password: 'pw', email: 'ann@example.com' });
    expect(await field(objectId)).toBeUndefined();
    expect(s.mail.messages).toHaveLength(0);
  });

  it('missing for a user without an email while the feature is on (email optional with requireEmail: never)', async () => {
    s = await startUsersServer({ settings: { ...ON, users: { requireEmail: 'never' } } });
    const { objectId } = await s.signUp({ username: 'ann', password: 'pw' });
    expect(await field(objectId)).toBeUndefined();
  });

  it('with the feature on, sign-up needs an email (204) by default', async () => {
    s = await startUsersServer({ settings: ON });
    expect((await s.request('POST', '/1/users', { body: { username: 'ann', password: 'pw' } })).body).toEqual({ code: 204, error: 'you must provide an email.' });
  });

  it('row 1: missing → false on creation with an email, and a link is mailed', async () => {
    s = await startUsersServer({ settings: ON });
    const { objectId } = await s.signUp({ username: 'ann', password: 'pw', email: 'ann@example.com' });
    expect(await field(objectId)).toBe(false);
    const mail = s.mail.last('ann@example.com')!;
    expect(mail.subject).toContain('test-app');
    expect(mail.html).toContain('<a href=');
    expect(s.linkOf('ann@example.com')).toMatch(new RegExp(`^${LINK_BASE}/1/verifyEmail\\?token=[0-9a-f]{64}$`));
  });

  it('row 2: false → true when the link is followed within a week; the link is single-use', async () => {
    s = await startUsersServer({ settings: ON });
    const { objectId } = await s.signUp({ username: 'ann', password: 'pw', email: 'ann@example.com' });
    const link = s.linkOf('ann@example.com');
    s.clock.advance(WEEK - 1);
    const page = await follow(link);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(await page.text()).toContain('ann@example.com is now verified');
    expect(await field(objectId)).toBe(true);
    const again = await follow(link);
    expect(again.status).toBe(400);
    expect(await field(objectId)).toBe(true);
  });

  it('row 2 (expired): a link older than one week does nothing', async () => {
    s = await startUsersServer({ settings: ON });
    const { objectId } = await s.signUp({ username: 'ann', password: 'pw', email: 'ann@example.com' });
    s.clock.advance(WEEK);
    expect((await follow(s.linkOf('ann@example.com'))).status).toBe(400);
    expect(await field(objectId)).toBe(false);
  });

  it('row 3: any → false with a new link when the email changes; old links die', async () => {
    s = await startUsersServer({ settings: ON });
    const { objectId, sessionToken } = await s.signUp({ username: 'ann', password: 'pw', email: 'ann@example.com' });
    const oldLink = s.linkOf('ann@example.com');
    await follow(oldLink);
    expect(await field(objectId)).toBe(true);
    await s.request('POST', '/1/requestEmailVerify', { body: { email: 'ann@example.com' } }); // verified: nothing mailed
    expect(s.mail.messages).toHaveLength(1);
    expect((await s.as(sessionToken, 'PUT', `/1/users/${objectId}`, { email: 'ann@new.example.com' })).status).toBe(200);
    expect(await field(objectId)).toBe(false);
    const newLink = s.linkOf('ann@new.example.com');
    expect(newLink).not.toBe(oldLink);
    expect((await follow(newLink)).status).toBe(200);
    expect(await field(objectId)).toBe(true);
  });

  it('row 3 (added): an email added later starts unverified with a link', async () => {
    s = await startUsersServer({ settings: { ...ON, users: { requireEmail: 'never' } } });
    const { objectId, sessionToken } = await s.signUp({ username: 'ann', password: 'pw' });
    await s.as(sessionToken, 'PUT', `/1/users/${objectId}`, { email: 'ann@example.com' });
    expect(await field(objectId)).toBe(false);
    expect(s.mail.messages).toHaveLength(1);
  });

  it('a link mailed to an address the user no longer has does not verify the new one', async () => {
    s = await startUsersServer({ settings: ON });
    const { objectId, sessionToken } = await s.signUp({ username: 'ann', password: 'pw', email: 'ann@example.com' });
    const stale = s.linkOf('ann@example.com');
    await s.as(sessionToken, 'PUT', `/1/users/${objectId}`, { email: 'ann@new.example.com' });
    expect((await follow(stale)).status).toBe(400);
    expect(await field(objectId)).toBe(false);
  });

  it('row 4: false stays false and the link is mailed again on request; both links work until used', async () => {
    s = await startUsersServer({ settings: ON });
    const { objectId } = await s.signUp({ username: 'ann', password: 'pw', email: 'ann@example.com' });
    const first = s.linkOf('ann@example.com');
    const res = await s.request('POST', '/1/requestEmailVerify', { body: { email: 'ann@example.com' } });
    expect(res.body).toEqual({ msg: 'ok' });
    expect(s.mail.messages).toHaveLength(2);
    expect(await field(objectId)).toBe(false);
    const second = s.linkOf('ann@example.com');
    expect(second).not.toBe(first);
    expect((await follow(second)).status).toBe(200);
    expect(await field(objectId)).toBe(true);
  });

  it('requestEmailVerify: 120 while the feature is off, 205 for an unknown address (or ok when hidden)', async () => {
    s = await startUsersServer();
    expect((await s.request('POST', '/1/requestEmailVerify', { body: { email: 'a@example.com' } })).body.code).toBe(120);
    await s.close();
    s = await startUsersServer({ settings: ON });
    expect((await s.request('POST', '/1/requestEmailVerify', { body: { email: 'nobody@example.com' } })).body.code).toBe(205);
    expect((await s.request('POST', '/1/requestEmailVerify', { body: {} })).body.code).toBe(118);
    await s.close();
    s = await startUsersServer({ settings: { ...ON, users: { revealUnknownEmail: false } } });
    expect((await s.request('POST', '/1/requestEmailVerify', { body: { email: 'nobody@example.com' } })).body).toEqual({ msg: 'ok' });
    expect(s.mail.messages).toHaveLength(0);
  });

  it('clients cannot set emailVerified; the master key can on update', async () => {
    s = await startUsersServer({ settings: ON });
    const { objectId, sessionToken } = await s.signUp({ username: 'ann', password: 'pw', email: 'ann@example.com' });
    expect((await s.as(sessionToken, 'PUT', `/1/users/${objectId}`, { emailVerified: true })).body.code).toBe(105);
    expect((await s.as(sessionToken, 'PUT', `/1/classes/_User/${objectId}`, { emailVerified: true })).body.code).toBe(105);
    expect(await field(objectId)).toBe(false);
    expect((await s.request('PUT', `/1/users/${objectId}`, { body: { emailVerified: true }, auth: 'master' })).status).toBe(200);
    expect(await field(objectId)).toBe(true);
  });

  it('links use users.linkBaseUrl when set; a failing mail transport does not fail sign-up', async () => {
    s = await startUsersServer({ settings: { ...ON, users: { linkBaseUrl: 'https://api.example.com/' } } });
    s.mail.failNext();
    const { objectId } = await s.signUp({ username: 'ann', password: 'pw', email: 'ann@example.com' });
    expect(await field(objectId)).toBe(false);
    await s.request('POST', '/1/requestEmailVerify', { body: { email: 'ann@example.com' } });
    expect(s.linkOf('ann@example.com')).toMatch(/^https:\/\/api\.example\.com\/1\/verifyEmail\?token=/);
    s.mail.failNext();
    const failed = await s.request('POST', '/1/requestEmailVerify', { body: { email: 'ann@example.com' } });
    expect(failed.status).toBe(424);
    expect(failed.body.code).toBe(11052);
  });

  it('sign-up through /1/classes/_User follows the same state machine', async () => {
    s = await startUsersServer({ settings: ON });
    const res = await s.request('POST', '/1/classes/_User', { body: { username: 'ann', password: 'pw', email: 'ann@example.com' } });
    expect(res.status).toBe(201);
    expect(res.body).toHaveProperty('sessionToken'); // fix 11.5: a sign-up like POST /1/users
    expect(await field(res.body.objectId)).toBe(false);
    expect((await follow(s.linkOf('ann@example.com'))).status).toBe(200);
    expect(await field(res.body.objectId)).toBe(true);
  });
});
