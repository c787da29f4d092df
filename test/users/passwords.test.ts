import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LINK_BASE, type UsersServer, pathOf, startUsersServer } from './users-server.js';

let s: UsersServer;
let ann: { objectId: string; sessionToken: string };
beforeEach(async () => {
  s = await startUsersServer();
  ann = await s.signUp({ username: 'ann', password: 'old-pw', email: 'ann@example.com' });
});
afterEach(async () => s.close());

const canLogin = async (password: string) => (await s.request('GET', `/1/login?username=ann&password=${password}`)).status === 200;

describe('change with the old password', () => {
  it('PUT /1/updatePassword: 211 without a session, 210 for a wrong old password, ok otherwise', async () => {
    const body = { oldPassword: 'old-pw', newPassword: 'new-pw' };
    expect((await s.as(null, 'PUT', '/1/updatePassword', body)).body.code).toBe(211);
    expect((await s.as('0'.repeat(64), 'PUT', '/1/updatePassword', body)).body.code).toBe(211);
    expect((await s.as(ann.sessionToken, 'PUT', '/1/updatePassword', { ...body, oldPassword: 'nope' })).body).toEqual({
      code: 210,
      error: 'old password incorrect.',
    });
    expect((await s.as(ann.sessionToken, 'PUT', '/1/updatePassword', { oldPassword: 'old-pw' })).body.code).toBe(10050);
    expect((await s.as(ann.sessionToken, 'PUT', '/1/updatePassword', body)).body).toEqual({ msg: 'ok' });
    expect(await canLogin('new-pw')).toBe(true);
    expect(await canLogin('old-pw')).toBe(false);
  });

  it('PUT /1/updateUserPassword/:id needs that user (206 for another user, 211 without a session), or the master key', async () => {
    const bob = await s.signUp({ username: 'bob', password: 'bob-pw' });
    const body = { oldPassword: 'old-pw', newPassword: 'new-pw' };
    expect((await s.as(null, 'PUT', `/1/updateUserPassword/${ann.objectId}`, body)).body.code).toBe(211);
    expect((await s.as(bob.sessionToken, 'PUT', `/1/updateUserPassword/${ann.objectId}`, body)).body.code).toBe(206);
    expect((await s.as(ann.sessionToken, 'PUT', `/1/updateUserPassword/${ann.objectId}`, body)).body).toEqual({ msg: 'ok' });
    const master = await s.request('POST', `/1/updateUserPassword/${ann.objectId}`, { body: { oldPassword: 'new-pw', newPassword: 'third' }, auth: 'master' });
    expect(master.body).toEqual({ msg: 'ok' });
    expect(await canLogin('third')).toBe(true);
  });
});

/**
 * Regression (defect 6, D225): `PUT /1/updatePassword` and `/1/updateUserPassword/:id` wrote
 * `_User.password` without asking access/, so a user whose row the ACL or `_User`'s class-level
 * permissions keep from it changed its password anyway. They now answer what `PUT /1/users/:id
 * {password}` answers the same caller, and write nothing.
 */
describe('an old-password change is an update of the user row: access/ decides', () => {
  const body = { oldPassword: 'old-pw', newPassword: 'new-pw' };
  const rest = () => s.as(ann.sessionToken, 'PUT', `/1/users/${ann.objectId}`, { password: 'new-pw' });
  const changes = () => [
    s.as(ann.sessionToken, 'PUT', '/1/updatePassword', body),
    s.as(ann.sessionToken, 'PUT', `/1/updateUserPassword/${ann.objectId}`, body),
    s.as(ann.sessionToken, 'POST', `/1/updateUserPassword/${ann.objectId}`, body),
  ];
  const master = (method: string, path: string, payload: unknown) => s.request(method, path, { body: payload, auth: 'master' });
  /** A fresh session of ann's (a master-key password change revokes every session). */
  const login = async (password: string): Promise<string> => (await s.request('GET', `/1/login?username=ann&password=${password}`)).body.sessionToken;

  it("a row whose ACL refuses the user a write: 101 as on REST, nothing written, the session kept", async () => {
    expect((await master('PUT', `/1/users/${ann.objectId}`, { ACL: { '*': { read: true } } })).status).toBe(200);
    const refused = await rest();
    expect([refused.status, refused.body.code]).toEqual([404, 101]);
    for (const res of await Promise.all(changes())) expect({ status: res.status, body: res.body }).toEqual({ status: refused.status, body: refused.body });
    expect(await canLogin('old-pw')).toBe(true);
    expect(await canLogin('new-pw')).toBe(false);
    expect((await s.as(ann.sessionToken, 'GET', '/1/users/me')).status).toBe(200);
    // The master key still changes it, and an ACL that grants the user a write lets the user again.
    expect((await master('PUT', `/1/updateUserPassword/${ann.objectId}`, body)).body).toEqual({ msg: 'ok' });
    await master('PUT', `/1/users/${ann.objectId}`, { ACL: { '*': { read: true }, [ann.objectId]: { write: true } } });
    expect((await s.as(await login('new-pw'), 'PUT', '/1/updatePassword', { oldPassword: 'new-pw', newPassword: 'third' })).body).toEqual({ msg: 'ok' });
    expect(await canLogin('third')).toBe(true);
  });

  it("_User's class-level permissions closing update: 11171 as on REST, nothing written", async () => {
    expect((await master('PUT', '/1/schemas/_User', { classLevelPermissions: { update: {} } })).status).toBe(200);
    const refused = await rest();
    expect([refused.status, refused.body]).toEqual([403, { code: 11171, error: "permission denied for update on class '_User'." }]);
    for (const res of await Promise.all(changes())) expect({ status: res.status, body: res.body }).toEqual({ status: refused.status, body: refused.body });
    expect(await canLogin('old-pw')).toBe(true);
    expect((await master('PUT', `/1/updateUserPassword/${ann.objectId}`, body)).body).toEqual({ msg: 'ok' });
    await master('PUT', '/1/schemas/_User', { classLevelPermissions: { update: { [ann.objectId]: true } } });
    expect((await s.as(await login('new-pw'), 'PUT', '/1/updatePassword', { oldPassword: 'new-pw', newPassword: 'third' })).body).toEqual({ msg: 'ok' });
    expect(await canLogin('third')).toBe(true);
  });

  it('the recovery flows (email link, SMS code) act as the service: a closed row or table does not stop them', async () => {
    const phone = '13800138123';
    await master('PUT', `/1/users/${ann.objectId}`, { ACL: { '*': { read: true } }, mobilePhoneNumber: phone });
    await master('PUT', '/1/schemas/_User', { classLevelPermissions: { update: {} } });
    await s.request('POST', '/1/requestPasswordReset', { body: { email: 'ann@example.com' } });
    const token = new URL(s.linkOf('ann@example.com')).searchParams.get('token')!;
    const form = await fetch(`${s.url}/1/resetPassword`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token, password: 'by-link', confirm: 'by-link' }).toString(),
    });
    expect(form.status).toBe(200);
    expect(await canLogin('by-link')).toBe(true);
    const code = await s.smsCode(phone);
    expect((await s.request('PUT', `/1/resetPasswordBySmsCode/${code}`, { body: { password: 'by-sms' } })).body).toEqual({ msg: 'ok' });
    expect(await canLogin('by-sms')).toBe(true);
  });
});

describe('reset by email link', () => {
  it('mails a link; the form sets a new password once; every session is revoked', async () => {
    expect((await s.request('POST', '/1/requestPasswordReset', { body: { email: 'ann@example.com' } })).body).toEqual({ msg: 'ok' });
    const link = s.linkOf('ann@example.com');
    expect(link).toMatch(new RegExp(`^${LINK_BASE}/1/resetPassword\\?token=[0-9a-f]{64}$`));
    expect(s.mail.last('ann@example.com')!.subject).toBe('Reset your test-app password');

    const form = await fetch(s.url + pathOf(link));
    expect(form.status).toBe(200);
    expect(form.headers.get('referrer-policy')).toBe('no-referrer');
    const html = await form.text();
    expect(html).toContain('<form method="post" action="resetPassword">');
    const token = new URL(link).searchParams.get('token')!;
    expect(html).toContain(`value="${token}"`);

    const post = (fields: Record<string, string>) =>
      fetch(`${s.url}/1/resetPassword`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(fields).toString(),
      });
    const mismatch = await post({ token, password: 'a-new-pw', confirm: 'other' });
    expect(mismatch.status).toBe(400);
    expect(await mismatch.text()).toContain('The two passwords differ.');
    const empty = await post({ token, password: '', confirm: '' });
    expect(empty.status).toBe(400);
    const done = await post({ token, password: 'a-new-pw', confirm: 'a-new-pw' });
    expect(done.status).toBe(200);
    expect(await done.text()).toContain('Password changed');
    expect(await canLogin('a-new-pw')).toBe(true);
    expect(await canLogin('old-pw')).toBe(false);
    expect((await s.as(ann.sessionToken, 'GET', '/1/users/me')).body.code).toBe(211);
    expect((await post({ token, password: 'again-pw', confirm: 'again-pw' })).status).toBe(400);
    expect((await fetch(s.url + pathOf(link))).status).toBe(400);
  });

  it('links expire (1 hour by default) and die when the email changes', async () => {
    await s.request('POST', '/1/requestPasswordReset', { body: { email: 'ann@example.com' } });
    const link = s.linkOf('ann@example.com');
    s.clock.advance(60 * 60 * 1000);
    expect((await fetch(s.url + pathOf(link))).status).toBe(400);
    await s.request('POST', '/1/requestPasswordReset', { body: { email: 'ann@example.com' } });
    const token = new URL(s.linkOf('ann@example.com')).searchParams.get('token')!;
    await s.as(ann.sessionToken, 'PUT', `/1/users/${ann.objectId}`, { email: 'ann@new.example.com' });
    const res = await fetch(`${s.url}/1/resetPassword`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token, password: 'x-pw' }).toString(),
    });
    expect(res.status).toBe(400);
    expect(await canLogin('x-pw')).toBe(false);
  });

  it('an unknown email is 205 like the hosted service; hidden when revealUnknownEmail is false', async () => {
    expect((await s.request('POST', '/1/requestPasswordReset', { body: { email: 'nobody@example.com' } })).body).toEqual({
      code: 205,
      error: "no user found with email 'nobody@example.com'.",
    });
    expect((await s.request('POST', '/1/requestPasswordReset', { body: {} })).body.code).toBe(118);
    await s.close();
    s = await startUsersServer({ settings: { users: { revealUnknownEmail: false } } });
    expect((await s.request('POST', '/1/requestPasswordReset', { body: { email: 'nobody@example.com' } })).body).toEqual({ msg: 'ok' });
    expect(s.mail.messages).toHaveLength(0);
  });

  it('without a mail transport the mailing flows answer 11007; sign-up still works', async () => {
    await s.close();
    s = await startUsersServer({ mail: false, settings: { features: { emailVerification: true } } });
    const { objectId } = await s.signUp({ username: 'ann', password: 'pw', email: 'ann@example.com' });
    expect((await s.request('GET', `/1/users/${objectId}`)).body.emailVerified).toBe(false);
    expect((await s.request('POST', '/1/requestPasswordReset', { body: { email: 'ann@example.com' } })).body.code).toBe(11007);
    expect((await s.request('POST', '/1/requestEmailVerify', { body: { email: 'ann@example.com' } })).body.code).toBe(11007);
  });

  it('link pages escape what they show and refuse garbage tokens', async () => {
    const res = await fetch(`${s.url}/1/resetPassword?token=%3Cscript%3E`);
    expect(res.status).toBe(400);
    expect(await res.text()).not.toContain('<script>');
    expect((await fetch(`${s.url}/1/verifyEmail`)).status).toBe(400);
  });
});
