import { describe, expect, it } from 'vitest';
import { type ApplicationConfig, resolveApplication } from '../../src/app/application.js';
import { seededRandom } from '../../src/core/random.js';
import { type StoredRecord, dateValue } from '../../src/core/values.js';
import type { Json } from '../../src/core/wire-values.js';
import { scryptHasher } from '../../src/users/password-hash.js';
import { defaultUserPhoneValidator } from '../../src/users/user-fields.js';
import { prepareUserWrite } from '../../src/users/user-write.js';

const hasher = scryptHasher(seededRandom(1), { N: 1024, r: 8, p: 1 });
const appWith = (settings: ApplicationConfig['settings'] = {}) =>
  resolveApplication({ applicationId: 'app', restApiKey: 'r', masterKey: 'm', settings });
const on = appWith({ features: { emailVerification: true } });
const off = appWith();
const now = dateValue(0);
const user = (fields: Record<string, Json>): StoredRecord => ({ objectId: 'u1', createdAt: now, updatedAt: now, ...(fields as object) }) as StoredRecord;

const prepare = (app: typeof on, current: StoredRecord | null, body: Record<string, Json>, isMaster = false) =>
  prepareUserWrite({ app, isMaster, current, body, hasher, phoneValidator: defaultUserPhoneValidator });

describe('prepareUserWrite', () => {
  it('hashes the password and keeps other columns', async () => {
    const p = await prepare(off, null, { username: 'ann', password: 'pw', score: 3 });
    expect(p.body.password).toMatch(/^scrypt\$/);
    expect(p.body.score).toBe(3);
    expect(p.passwordChanged).toBe(true);
    expect(p.unique).toEqual({ username: 'ann' });
    expect(p.body).not.toHaveProperty('emailVerified');
  });

  it('needs username and password at sign-up (201), and an email only as configured (204)', async () => {
    await expect(prepare(off, null, { password: 'pw' })).rejects.toMatchObject({ code: 201 });
    await expect(prepare(off, null, { username: 'ann' })).rejects.toMatchObject({ code: 201 });
    await expect(prepare(on, null, { username: 'ann', password: 'pw' })).rejects.toMatchObject({ code: 204 });
    await expect(prepare(appWith({ users: { requireEmail: 'always' } }), null, { username: 'a', password: 'p' })).rejects.toMatchObject({ code: 204 });
    await prepare(appWith({ features: { emailVerification: true }, users: { requireEmail: 'never' } }), null, { username: 'a', password: 'p' });
  });

  it('sets emailVerified false and mails on sign-up with an email while the feature is on', async () => {
    const p = await prepare(on, null, { username: 'ann', password: 'pw', email: 'ann@example.com' });
    expect(p.body.emailVerified).toBe(false);
    expect(p.mailVerifyTo).toBe('ann@example.com');
    const q = await prepare(off, null, { username: 'ann', password: 'pw', email: 'ann@example.com' });
    expect(q.body).not.toHaveProperty('emailVerified');
    expect(q.mailVerifyTo).toBeNull();
  });

  it('refuses verification flags from clients, tokens and authData from anyone', async () => {
    await expect(prepare(on, null, { username: 'a', password: 'p', email: 'a@b.co', emailVerified: true })).rejects.toMatchObject({ code: 105 });
    await expect(prepare(on, null, { username: 'a', password: 'p', email: 'a@b.co', emailVerified: true }, true)).rejects.toMatchObject({ code: 105 });
    await expect(prepare(off, user({ username: 'a' }), { mobilePhoneVerified: true })).rejects.toMatchObject({ code: 105 });
    await expect(prepare(off, user({ username: 'a' }), { sessionToken: 'x' }, true)).rejects.toMatchObject({ code: 105 });
    await expect(prepare(off, user({ username: 'a' }), { authData: {} })).rejects.toMatchObject({ code: 105 });
    const master = await prepare(off, user({ username: 'a' }), { mobilePhoneVerified: true }, true);
    expect(master.body.mobilePhoneVerified).toBe(true);
  });

  it('applies the state machine on update', async () => {
    const verified = user({ username: 'a', email: 'a@b.co', emailVerified: true });
    expect((await prepare(on, verified, { email: 'c@d.co' })).body.emailVerified).toBe(false);
    expect((await prepare(on, verified, { email: 'c@d.co' })).mailVerifyTo).toBe('c@d.co');
    expect((await prepare(on, verified, { email: 'a@b.co' })).body).not.toHaveProperty('emailVerified');
    expect((await prepare(on, verified, { email: null })).body).toMatchObject({ email: { __op: 'Delete' }, emailVerified: { __op: 'Delete' } });
    expect((await prepare(off, verified, { email: 'c@d.co' })).body.emailVerified).toEqual({ __op: 'Delete' });
    expect((await prepare(on, verified, { nickname: 'x' })).body).toEqual({ nickname: 'x' });
  });

  it('makes mobilePhoneVerified missing when the number changes', async () => {
    const u = user({ username: 'a', mobilePhoneNumber: '13800138000', mobilePhoneVerified: true });
    expect((await prepare(off, u, { mobilePhoneNumber: '13900139000' })).body.mobilePhoneVerified).toEqual({ __op: 'Delete' });
    expect((await prepare(off, u, { mobilePhoneNumber: '13800138000' })).body).not.toHaveProperty('mobilePhoneVerified');
  });

  it('validates usernames, emails, phones and passwords', async () => {
    await expect(prepare(off, user({}), { username: '' })).rejects.toMatchObject({ code: 201 });
    await expect(prepare(off, user({}), { username: 5 })).rejects.toMatchObject({ code: 111 });
    await expect(prepare(off, user({}), { username: { __op: 'Delete' } })).rejects.toMatchObject({ code: 111 });
    await expect(prepare(off, user({}), { email: 'not-an-email' })).rejects.toMatchObject({ code: 11005 });
    await expect(prepare(off, user({}), { mobilePhoneNumber: '123' })).rejects.toMatchObject({ code: 301 });
    await expect(prepare(off, user({}), { password: '' })).rejects.toMatchObject({ code: 10050 });
    await expect(prepare(off, user({}), { password: 12 })).rejects.toMatchObject({ code: 10051 });
    await expect(prepare(appWith({ users: { minPasswordLength: 8 } }), user({}), { password: 'short' })).rejects.toMatchObject({ code: 11005 });
  });
});
