import { afterEach, describe, expect, it } from 'vitest';
import { type UsersServer, startUsersServer } from './users-server.js';

const PHONE = '13800138000';
let s: UsersServer;
afterEach(async () => s?.close());

describe('sign-up-or-login by phone and SMS code', () => {
  it('POST /1/usersv1 creates a user named after the number, with mobilePhoneVerified, then logs it in', async () => {
    s = await startUsersServer();
    const first = await s.request('POST', '/1/usersv1', { body: { mobilePhoneNumber: PHONE, smsCode: await s.smsCode(PHONE), nickname: 'N' } });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ username: PHONE, mobilePhoneNumber: PHONE, mobilePhoneVerified: true, nickname: 'N' });
    expect(first.body.sessionToken).toMatch(/^[0-9a-f]{64}$/);
    expect(first.body).not.toHaveProperty('password');
    const again = await s.request('POST', '/1/usersv1', { body: { mobilePhoneNumber: PHONE, smsCode: await s.smsCode(PHONE) } });
    expect(again.body.objectId).toBe(first.body.objectId);
    expect(again.body.sessionToken).not.toBe(first.body.sessionToken);
  });

  it('a wrong or reused code is 207 and creates nobody', async () => {
    s = await startUsersServer();
    const code = await s.smsCode(PHONE);
    const wrong = code === '000000' ? '111111' : '000000';
    expect((await s.request('POST', '/1/usersv1', { body: { mobilePhoneNumber: PHONE, smsCode: wrong } })).body.code).toBe(207);
    expect((await s.request('POST', '/1/usersv1', { body: { mobilePhoneNumber: PHONE, smsCode: code } })).status).toBe(200);
    expect((await s.request('POST', '/1/usersv1', { body: { mobilePhoneNumber: PHONE, smsCode: code } })).body.code).toBe(207);
    expect((await s.request('GET', '/1/users')).body.results).toHaveLength(1);
  });

  it('POST /1/users with smsCode does the same; an existing user gets mobilePhoneVerified', async () => {
    s = await startUsersServer();
    const { objectId } = await s.signUp({ username: 'ann', password: 'pw', mobilePhoneNumber: PHONE });
    expect((await s.request('GET', `/1/users/${objectId}`)).body).not.toHaveProperty('mobilePhoneVerified');
    const res = await s.request('POST', '/1/users', { body: { mobilePhoneNumber: PHONE, smsCode: await s.smsCode(PHONE) } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ objectId, username: 'ann', mobilePhoneVerified: true });
  });

  it('POST /1/login {mobilePhoneNumber, smsCode} logs in a known number; unknown numbers are 101', async () => {
    s = await startUsersServer();
    await s.signUp({ username: 'ann', password: 'pw', mobilePhoneNumber: PHONE });
    const ok = await s.request('POST', '/1/login', { body: { mobilePhoneNumber: PHONE, smsCode: await s.smsCode(PHONE) } });
    expect(ok.body).toMatchObject({ username: 'ann', mobilePhoneVerified: true });
    const other = '13900139000';
    const unknown = await s.request('POST', '/1/login', { body: { mobilePhoneNumber: other, smsCode: await s.smsCode(other) } });
    expect(unknown.body.code).toBe(101);
  });

  it('PUT /1/resetPasswordBySmsCode/:code sets the password of the number the code was sent to', async () => {
    s = await startUsersServer();
    const { sessionToken } = await s.signUp({ username: 'ann', password: 'old', mobilePhoneNumber: PHONE });
    const code = await s.smsCode(PHONE);
    expect((await s.request('PUT', `/1/resetPasswordBySmsCode/${code}`, { body: {} })).body.code).toBe(10050);
    expect((await s.request('PUT', `/1/resetPasswordBySmsCode/${code}`, { body: { password: 5 } })).body.code).toBe(10051);
    const res = await s.request('PUT', `/1/resetPasswordBySmsCode/${code}`, { body: { password: 'new' } });
    expect(res.body).toEqual({ msg: 'ok' });
    expect((await s.request('GET', '/1/login?username=ann&password=new')).status).toBe(200);
    expect((await s.request('GET', '/1/login?username=ann&password=old')).body.code).toBe(101);
    expect((await s.as(sessionToken, 'GET', '/1/users/me')).body.code).toBe(211);
    expect((await s.request('PUT', `/1/resetPasswordBySmsCode/${code}`, { body: { password: 'again' } })).body.code).toBe(207);
  });

  it('without the SMS feature the phone-code flows answer 11007', async () => {
    s = await startUsersServer({ sms: false });
    expect((await s.request('POST', '/1/usersv1', { body: { mobilePhoneNumber: PHONE, smsCode: '123456' } })).body.code).toBe(11007);
    expect((await s.request('PUT', '/1/resetPasswordBySmsCode/123456', { body: { password: 'x' } })).body.code).toBe(11007);
  });
});
