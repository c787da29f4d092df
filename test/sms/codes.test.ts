import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { sqliteKvStore } from '../../src/kv/sqlite-kv.js';
import { e164PhoneValidator } from '../../src/sms/phone.js';
import { PHONE, appConfig, errorOf, scriptedRandom, smsHarness } from './harness.js';

const dbs: Database.Database[] = [];
afterAll(() => dbs.forEach((db) => db.close()));
const sqliteKv = () => {
  const db = new Database(':memory:');
  dbs.push(db);
  return { db, kv: sqliteKvStore({ database: db }) };
};

describe('verification codes', () => {
  it('full flow: requestSmsCode -> memory transport -> verifySmsCode', async () => {
    const h = smsHarness();
    const sent = await h.call('POST', '/1/requestSmsCode', { mobilePhoneNumber: PHONE });
    const smsId = (sent.body as { smsId: number }).smsId;
    expect(Number.isSafeInteger(smsId)).toBe(true);
    const message = h.memory.last(PHONE)!;
    expect(message.text).toMatch(/^Your code is \d{6}, valid for 5 minutes\. Do not share it\.$/);
    expect(message.signature).toBe('【svcb】');
    expect(message.templateName).toBe('default');
    expect(message.smsId).toBe(smsId);
    const code = h.memory.lastCode(PHONE)!;
    expect(message.variables).toEqual({ code });
    expect((await h.call('POST', `/1/verifySmsCode/${code}`, { mobilePhoneNumber: PHONE })).body).toEqual({ msg: 'ok' });
    expect((await h.call('GET', `/1/querySms/${smsId}`)).body).toEqual({ sms_state: 'SENDING', verify_state: true });
    // single use
    expect((await errorOf(h.call('POST', '/1/verifySmsCode', { mobilePhoneNumber: PHONE, smsCode: code }))).code).toBe(207);
  });

  it('the body shape {mobilePhoneNumber, smsCode} verifies too', async () => {
    const h = smsHarness();
    await h.api.requestCode(h.app(), PHONE);
    const code = h.memory.lastCode(PHONE)!;
    expect((await h.call('POST', '/1/verifySmsCode', { mobilePhoneNumber: PHONE, smsCode: code })).body).toEqual({ msg: 'ok' });
  });

  it('is valid for the template window: ok 1 ms before 5 minutes, 207 at 5 minutes', async () => {
    const h = smsHarness();
    await h.api.requestCode(h.app(), PHONE);
    const code = h.memory.lastCode(PHONE)!;
    h.clock.advance(5 * 60_000 - 1);
    await h.api.verifyCode(h.app(), PHONE, code);

    const later = smsHarness();
    await later.api.requestCode(later.app(), PHONE);
    const late = later.memory.lastCode(PHONE)!;
    later.clock.advance(5 * 60_000);
    expect((await errorOf(later.api.verifyCode(later.app(), PHONE, late))).code).toBe(207);
    expect(await later.api.redeemCode(later.app(), late)).toBeNull();
  });

  it('a template sets its own validity and may show ${minutes}', async () => {
    const h = smsHarness({ apps: [appConfig('app1', { templates: [{ name: 'login', text: 'Code ${code} for ${minutes} min', kind: 'code', approved: true, validityMinutes: 10 }] })] });
    await h.api.requestCode(h.app(), PHONE, { template: 'login' });
    expect(h.memory.last(PHONE)!.text).toMatch(/^Code \d{6} for 10 min$/);
    h.clock.advance(10 * 60_000 - 1);
    await h.api.verifyCode(h.app(), PHONE, h.memory.lastCode(PHONE)!);
  });

  it('wrong code is 207; the code dies after maxCodeAttempts wrong attempts (11043)', async () => {
    const h = smsHarness();
    await h.api.requestCode(h.app(), PHONE);
    const code = h.memory.lastCode(PHONE)!;
    const wrong = code === '000000' ? '000001' : '000000';
    for (let i = 0; i < 4; i++) expect((await errorOf(h.api.verifyCode(h.app(), PHONE, wrong))).code).toBe(207);
    const fifth = await errorOf(h.api.verifyCode(h.app(), PHONE, wrong));
    expect(fifth.code).toBe(11043);
    expect(fifth.message).toMatch(/^code error/);
    expect((await errorOf(h.api.verifyCode(h.app(), PHONE, code))).code).toBe(11043);
    expect(await h.api.redeemCode(h.app(), code)).toBeNull();
  });

  it('4 wrong attempts then the right code succeeds; the limit is a setting', async () => {
    const h = smsHarness({ apps: [appConfig('app1'), appConfig('app2', { maxCodeAttempts: 2 })] });
    await h.api.requestCode(h.app(), PHONE);
    const code = h.memory.lastCode(PHONE)!;
    const wrong = code === '000000' ? '000001' : '000000';
    for (let i = 0; i < 4; i++) await errorOf(h.api.verifyCode(h.app(), PHONE, wrong));
    await h.api.verifyCode(h.app(), PHONE, code);

    await h.api.requestCode(h.app('app2'), PHONE);
    const code2 = h.memory.lastCode(PHONE)!;
    const wrong2 = code2 === '000000' ? '000001' : '000000';
    expect((await errorOf(h.api.verifyCode(h.app('app2'), PHONE, wrong2))).code).toBe(207);
    expect((await errorOf(h.api.verifyCode(h.app('app2'), PHONE, wrong2))).code).toBe(11043);
    expect((await errorOf(h.api.verifyCode(h.app('app2'), PHONE, code2))).code).toBe(11043);
  });

  it('malformed codes and unknown phones are 207; bad phone format is 301', async () => {
    const h = smsHarness();
    expect((await errorOf(h.api.verifyCode(h.app(), PHONE, '123456'))).code).toBe(207);
    await h.api.requestCode(h.app(), PHONE);
    expect((await errorOf(h.api.verifyCode(h.app(), PHONE, '12345'))).code).toBe(207);
    expect((await errorOf(h.api.verifyCode(h.app(), PHONE, 'abcdef'))).code).toBe(207);
    const bad = await errorOf(h.api.verifyCode(h.app(), '1380013800', '123456'));
    expect([bad.code, bad.message]).toEqual([301, 'mobilePhoneNumber must be an 11-digit number']);
    expect((await errorOf(h.api.requestCode(h.app(), '23800138000'))).code).toBe(301);
    expect((await errorOf(h.api.requestCode(h.app(), '+8613800138000'))).code).toBe(301);
  });

  it('a phoneValidator option accepts E.164 numbers', async () => {
    const h = smsHarness({ phoneValidator: e164PhoneValidator });
    await h.api.requestCode(h.app(), '+447700900123');
    await h.api.verifyCode(h.app(), '+447700900123', h.memory.lastCode('+447700900123')!);
    expect((await errorOf(h.api.requestCode(h.app(), '13800138000'))).code).toBe(301);
  });

  it('a new code replaces the previous one', async () => {
    const h = smsHarness();
    await h.api.requestCode(h.app(), PHONE);
    const first = h.memory.lastCode(PHONE)!;
    h.clock.advance(60_000);
    await h.api.requestCode(h.app(), PHONE);
    const second = h.memory.lastCode(PHONE)!;
    expect(second).not.toBe(first);
    expect((await errorOf(h.api.verifyCode(h.app(), PHONE, first))).code).toBe(207);
    expect(await h.api.redeemCode(h.app(), first)).toBeNull();
    await h.api.verifyCode(h.app(), PHONE, second);
  });

  it('codes are per application', async () => {
    const h = smsHarness({ apps: [appConfig('app1'), appConfig('app2')] });
    await h.api.requestCode(h.app('app1'), PHONE);
    const code = h.memory.lastCode(PHONE)!;
    expect((await errorOf(h.api.verifyCode(h.app('app2'), PHONE, code))).code).toBe(207);
    expect(await h.api.redeemCode(h.app('app2'), code)).toBeNull();
    await h.api.verifyCode(h.app('app1'), PHONE, code);
  });

  it('redeemCode finds the phone by the code alone, once', async () => {
    const h = smsHarness();
    await h.api.requestCode(h.app(), PHONE);
    await h.api.requestCode(h.app(), '13900139000');
    const code = h.memory.lastCode('13900139000')!;
    expect(await h.api.redeemCode(h.app(), code)).toBe('13900139000');
    expect(await h.api.redeemCode(h.app(), code)).toBeNull();
    expect((await errorOf(h.api.verifyCode(h.app(), '13900139000', code))).code).toBe(207);
    expect(await h.api.redeemCode(h.app(), 'nope')).toBeNull();
    const { smsId } = { smsId: h.memory.last('13900139000')!.smsId };
    expect(await h.api.status(h.app(), smsId)).toEqual({ state: 'SENDING', verified: true });
  });

  it('live codes are unique per application: a drawn duplicate is redrawn', async () => {
    const h = smsHarness({ random: scriptedRandom([123456, 123456, 654321]) });
    await h.api.requestCode(h.app(), PHONE);
    await h.api.requestCode(h.app(), '13900139000');
    expect(h.memory.lastCode(PHONE)).toBe('123456');
    expect(h.memory.lastCode('13900139000')).toBe('654321');
    expect(await h.api.redeemCode(h.app(), '654321')).toBe('13900139000');
  });

  it('stores codes only as digests (nothing in the store contains the code)', async () => {
    const { db, kv } = sqliteKv();
    const h = smsHarness({ kv });
    await h.api.requestCode(h.app(), PHONE);
    const code = h.memory.lastCode(PHONE)!;
    const rows = db.prepare('SELECT key, value FROM svc_kv').all() as Array<{ key: string; value: string }>;
    expect(rows.length).toBeGreaterThan(3);
    for (const row of rows) expect(`${row.key} ${row.value}`).not.toContain(code);
  });

  it.each([
    ['memory', () => smsHarness()],
    ['sqlite', () => smsHarness({ kv: sqliteKv().kv })],
  ])('50 concurrent verifications of the right code: exactly one succeeds (%s)', async (_, make) => {
    const h = make();
    await h.api.requestCode(h.app(), PHONE);
    const code = h.memory.lastCode(PHONE)!;
    const results = await Promise.allSettled(Array.from({ length: 50 }, () => h.api.verifyCode(h.app(), PHONE, code)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const codes = results.flatMap((r) => (r.status === 'rejected' ? [(r.reason as { code: number }).code] : []));
    expect(codes.every((c) => c === 207 || c === 11043)).toBe(true);
  });

  it.each([
    ['memory', () => smsHarness()],
    ['sqlite', () => smsHarness({ kv: sqliteKv().kv })],
  ])('50 concurrent redeems of one code: exactly one gets the phone (%s)', async (_, make) => {
    const h = make();
    await h.api.requestCode(h.app(), PHONE);
    const code = h.memory.lastCode(PHONE)!;
    const results = await Promise.all(Array.from({ length: 50 }, () => h.api.redeemCode(h.app(), code)));
    expect(results.filter((r) => r === PHONE)).toHaveLength(1);
    expect(results.filter((r) => r === null)).toHaveLength(49);
  });
});
