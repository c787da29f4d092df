import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { memoryCounterStore } from '../../src/counters/memory-counter-store.js';
import { sqliteCounterStore } from '../../src/counters/sqlite-counter-store.js';
import { sqliteKvStore } from '../../src/kv/sqlite-kv.js';
import { PHONE, appConfig, errorOf, scriptedRandom, smsHarness } from './harness.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const dbs: Database.Database[] = [];
afterAll(() => dbs.forEach((db) => db.close()));
const db = () => {
  const d = new Database(':memory:');
  dbs.push(d);
  return d;
};
const unlimited = { quota: 'unlimited' };

describe('per-number rate limits', () => {
  it('1 per minute: 10010 with retry-after seconds, allowed again at the minute', async () => {
    const h = smsHarness({ apps: [appConfig('app1', unlimited)] });
    await h.api.requestCode(h.app(), PHONE);
    h.clock.advance(MIN - 1);
    const limited = await errorOf(h.api.requestCode(h.app(), PHONE));
    expect([limited.code, limited.status, limited.retryAfter]).toEqual([10010, 429, 1]);
    expect(limited.message).toBe(`mobile '${PHONE}' send message limited, retry after 1 seconds.`);
    h.clock.advance(1);
    await h.api.requestCode(h.app(), PHONE);
  });

  it('5 per hour and 10 per day across both code and notification SMS', async () => {
    const h = smsHarness({ apps: [appConfig('app1', { ...unlimited, templates: [{ name: 'n', text: 'hi', kind: 'notification', approved: true }] })] });
    for (let i = 0; i < 5; i++) {
      if (i % 2 === 0) await h.api.requestCode(h.app(), PHONE);
      else await h.api.sendNotification(h.app(), PHONE, 'n', {});
      h.clock.advance(MIN);
    }
    const hourly = await errorOf(h.api.requestCode(h.app(), PHONE));
    expect([hourly.code, hourly.retryAfter]).toEqual([10010, (HOUR - 5 * MIN) / 1000]);
    h.clock.set(Date.UTC(2026, 0, 1) + HOUR - 1);
    expect((await errorOf(h.api.sendNotification(h.app(), PHONE, 'n', {}))).code).toBe(10010);
    h.clock.set(Date.UTC(2026, 0, 1) + HOUR);
    for (let i = 0; i < 5; i++) {
      await h.api.requestCode(h.app(), PHONE);
      h.clock.advance(MIN);
    }
    h.clock.set(Date.UTC(2026, 0, 1) + 3 * HOUR);
    const daily = await errorOf(h.api.requestCode(h.app(), PHONE));
    expect([daily.code, daily.retryAfter]).toEqual([10010, (DAY - 3 * HOUR) / 1000]);
    h.clock.set(Date.UTC(2026, 0, 1) + DAY - 1);
    expect((await errorOf(h.api.requestCode(h.app(), PHONE))).code).toBe(10010);
    h.clock.set(Date.UTC(2026, 0, 1) + DAY);
    await h.api.requestCode(h.app(), PHONE);
  });

  it('limits are per number and per application, and come from the settings', async () => {
    const h = smsHarness({ apps: [appConfig('app1', unlimited), appConfig('app2', { ...unlimited, limits: { perMinute: 2 } })] });
    await h.api.requestCode(h.app('app1'), PHONE);
    await h.api.requestCode(h.app('app1'), '13900139000');
    await h.api.requestCode(h.app('app2'), PHONE);
    await h.api.requestCode(h.app('app2'), PHONE);
    expect((await errorOf(h.api.requestCode(h.app('app1'), PHONE))).code).toBe(10010);
    expect((await errorOf(h.api.requestCode(h.app('app2'), PHONE))).code).toBe(10010);
  });

  it.each([
    ['memory stores', () => smsHarness({ apps: [appConfig('app1', unlimited)], counters: memoryCounterStore() })],
    ['sqlite stores', () => smsHarness({ apps: [appConfig('app1', unlimited)], counters: sqliteCounterStore({ database: db() }), kv: sqliteKvStore({ database: db() }) })],
  ])('1,000 concurrent requests for one number: exactly one accepted (%s)', async (_, make) => {
    const h = make();
    const results = await Promise.allSettled(Array.from({ length: 1000 }, () => h.api.requestCode(h.app(), PHONE)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(results.every((r) => r.status === 'fulfilled' || (r.reason as { code: number }).code === 10010)).toBe(true);
    expect(h.memory.messages).toHaveLength(1);
  });

  it('limits survive a restart with the SQLite stores', async () => {
    const file = db();
    const first = smsHarness({ apps: [appConfig('app1', unlimited)], counters: sqliteCounterStore({ database: file }), kv: sqliteKvStore({ database: file }) });
    await first.api.requestCode(first.app(), PHONE);
    const code = first.memory.lastCode(PHONE)!;
    const second = smsHarness({ apps: [appConfig('app1', unlimited)], counters: sqliteCounterStore({ database: file }), kv: sqliteKvStore({ database: file }) });
    expect((await errorOf(second.api.requestCode(second.app(), PHONE))).code).toBe(10010);
    await second.api.verifyCode(second.app(), PHONE, code);
  });
});

describe('quota and billing', () => {
  it('the default quota is 10 messages; then 10011 and nothing is sent', async () => {
    const h = smsHarness();
    for (let i = 0; i < 10; i++) await h.api.requestCode(h.app(), `1380013800${i}`);
    expect(await h.api.quota(h.app())).toEqual({ used: 10, remaining: 0 });
    const empty = await errorOf(h.api.requestCode(h.app(), '13900139000'));
    expect([empty.code, empty.status]).toEqual([10011, 400]);
    expect(h.memory.messages).toHaveLength(10);
  });

  it('long notifications are billed per 67 characters (135 counted -> 3 messages)', async () => {
    const text = 'x'.repeat(129 - 8) + '${v}';
    const h = smsHarness({ apps: [appConfig('app1', { quota: 5, templates: [{ name: 'long', text, kind: 'notification', approved: true }] })] });
    await h.api.sendNotification(h.app(), PHONE, 'long', { v: '12345678' });
    expect(h.memory.last(PHONE)!.text).toHaveLength(129);
    expect(await h.api.quota(h.app())).toEqual({ used: 3, remaining: 2 });
    expect((await errorOf(h.api.sendNotification(h.app(), '13900139000', 'long', { v: '12345678' }))).code).toBe(10011);
    expect(await h.api.quota(h.app())).toEqual({ used: 3, remaining: 2 });
    await h.api.sendNotification(h.app(), '13700137000', 'long', { v: '1' });
    expect(await h.api.quota(h.app())).toEqual({ used: 5, remaining: 0 });
  });

  it('two racing sends with one message of quota left: exactly one is sent and charged', async () => {
    const h = smsHarness({ apps: [appConfig('app1', { quota: 1 })] });
    const results = await Promise.allSettled([h.api.requestCode(h.app(), PHONE), h.api.requestCode(h.app(), '13900139000')]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(results.some((r) => r.status === 'rejected' && (r.reason as { code: number }).code === 10011)).toBe(true);
    expect(await h.api.quota(h.app())).toEqual({ used: 1, remaining: 0 });
    expect(h.memory.messages).toHaveLength(1);
  });

  it("'unlimited' never refuses but still counts", async () => {
    const h = smsHarness({ apps: [appConfig('app1', unlimited)] });
    for (let i = 0; i < 12; i++) await h.api.requestCode(h.app(), `138001380${String(i).padStart(2, '0')}`);
    expect(await h.api.quota(h.app())).toEqual({ used: 12, remaining: 'unlimited' });
  });

  it('raising the quota setting tops an application up (the used count lives in the KvStore)', async () => {
    const file = db();
    const kv = sqliteKvStore({ database: file });
    const small = smsHarness({ kv, apps: [appConfig('app1', { quota: 1 })] });
    await small.api.requestCode(small.app(), PHONE);
    expect((await errorOf(small.api.requestCode(small.app(), '13900139000'))).code).toBe(10011);
    const bigger = smsHarness({ kv, apps: [appConfig('app1', { quota: 3 })] });
    expect(await bigger.api.quota(bigger.app())).toEqual({ used: 1, remaining: 2 });
    await bigger.api.requestCode(bigger.app(), '13900139000');
  });
});

describe('provider failure', () => {
  it('11044 (424): quota not charged, code not stored, the rate-limit hit kept', async () => {
    const h = smsHarness({ random: scriptedRandom([111111, 222222]) });
    h.memory.failNext();
    const failed = await errorOf(h.api.requestCode(h.app(), PHONE));
    expect([failed.code, failed.status]).toEqual([11044, 424]);
    expect(await h.api.quota(h.app())).toEqual({ used: 0, remaining: 10 });
    expect(await h.api.redeemCode(h.app(), '111111')).toBeNull();
    expect((await errorOf(h.api.verifyCode(h.app(), PHONE, '111111'))).code).toBe(207);
    expect((await errorOf(h.api.requestCode(h.app(), PHONE))).code).toBe(10010);
    h.clock.advance(MIN);
    await h.api.requestCode(h.app(), PHONE);
    expect(h.memory.lastCode(PHONE)).toBe('222222');
    expect(await h.api.quota(h.app())).toEqual({ used: 1, remaining: 9 });
  });

  it('a non-coded transport error becomes 11044 naming the transport', async () => {
    const h = smsHarness();
    h.memory.failNext(1, new Error('socket hang up'));
    const failed = await errorOf(h.api.requestCode(h.app(), PHONE));
    expect(failed.code).toBe(11044);
    expect(failed.message).toBe('the SMS provider failed: memory: socket hang up');
  });
});

describe('notifications (requestSms)', () => {
  const templates = [
    { name: 'pay', text: 'Card ${card} paid ${amount}.', kind: 'notification', approved: true },
    { name: 'draft', text: 'x', kind: 'notification', approved: false },
    { name: 'login', text: 'Code ${code}', kind: 'code', approved: true },
  ];

  it('sends the filled template and returns an smsId', async () => {
    const h = smsHarness({ apps: [appConfig('app1', { templates })] });
    const res = await h.call('POST', '/1/requestSms', { mobilePhoneNumber: PHONE, template: 'pay', content: { card: '6222', amount: 12.5 } });
    expect(typeof (res.body as { smsId: number }).smsId).toBe('number');
    const m = h.memory.last(PHONE)!;
    expect([m.text, m.templateName, m.variables]).toEqual(['Card 6222 paid 12.5.', 'pay', { card: '6222', amount: '12.5' }]);
    expect((await h.call('GET', `/1/querySms/${m.smsId}`)).body).toEqual({ sms_state: 'SENDING', verify_state: false });
  });

  it('template and variable errors come before any rate-limit hit', async () => {
    const h = smsHarness({ apps: [appConfig('app1', { templates })] });
    const send = (body: Record<string, unknown>) => errorOf(h.call('POST', '/1/requestSms', { mobilePhoneNumber: PHONE, ...body } as never));
    expect((await send({ template: 'pay', content: { card: '1' } })).code).toBe(11042);
    expect((await send({ template: 'pay', content: { card: '1', amount: 2, extra: 3 } })).code).toBe(11042);
    expect((await send({ template: 'pay', content: { card: ['1'], amount: 2 } })).code).toBe(11042);
    expect((await send({ template: 'nope', content: {} })).code).toBe(10022);
    expect((await send({ template: 'draft', content: {} })).code).toBe(11040);
    expect((await send({ template: 'login', content: { code: '123456' } })).code).toBe(11041);
    expect((await send({ content: {} })).code).toBe(118);
    expect((await send({ template: 'pay', content: [] })).code).toBe(111);
    expect((await errorOf(h.call('POST', '/1/requestSmsCode', { mobilePhoneNumber: PHONE, template: 'pay' }))).code).toBe(11041);
    await h.api.sendNotification(h.app(), PHONE, 'pay', { card: '1', amount: 2 });
  });
});

describe('captcha gate', () => {
  const templates = [{ name: 'guarded', text: 'Code ${code}', kind: 'code', approved: true, captchaRequired: true }];

  it('a captchaRequired template needs a validate_token the captcha accepts (11012 otherwise)', async () => {
    const seen: string[] = [];
    const captcha = { consumeValidateToken: async (app: { applicationId: string }, token: string) => (seen.push(`${app.applicationId}:${token}`), token === 'good') };
    const h = smsHarness({ apps: [appConfig('app1', { templates })], captcha });
    expect((await errorOf(h.call('POST', '/1/requestSmsCode', { mobilePhoneNumber: PHONE, template: 'guarded' }))).code).toBe(11012);
    expect((await errorOf(h.call('POST', '/1/requestSmsCode', { mobilePhoneNumber: PHONE, template: 'guarded', validate_token: 'bad' }))).code).toBe(11012);
    await h.call('POST', '/1/requestSmsCode', { mobilePhoneNumber: PHONE, template: 'guarded', validate_token: 'good' });
    expect(seen).toEqual(['app1:bad', 'app1:good']);
    // the default template needs no captcha
    h.clock.advance(MIN);
    await h.call('POST', '/1/requestSmsCode', { mobilePhoneNumber: PHONE });
  });

  it('refuses to start without a captcha option when a template needs one', () => {
    expect(() => smsHarness({ apps: [appConfig('app1', { templates })] })).toThrow(/\[svcbase\] \[sms\].*captcha/);
  });
});

describe('status (querySms) and delivery reports', () => {
  it('SENDING, then the delivery report sets SUCCESS or FAIL', async () => {
    const h = smsHarness({ apps: [appConfig('app1', unlimited)] });
    const { smsId } = await h.api.requestCode(h.app(), PHONE);
    const other = await h.api.requestCode(h.app(), '13900139000');
    expect((await h.call('GET', `/1/querySms/${smsId}`)).body).toEqual({ sms_state: 'SENDING', verify_state: false });
    h.memory.deliver(h.memory.last(PHONE)!.providerId, 'SUCCESS');
    h.memory.deliver(h.memory.last('13900139000')!.providerId, 'FAIL');
    await new Promise((resolve) => setImmediate(resolve));
    expect((await h.call('GET', `/1/querySms/${smsId}`)).body).toEqual({ sms_state: 'SUCCESS', verify_state: false });
    expect((await h.call('GET', `/1/querySms/${other.smsId}`)).body).toEqual({ sms_state: 'FAIL', verify_state: false });
  });

  it('recordDelivery applies a report received by the host; unknown ids are ignored', async () => {
    const h = smsHarness();
    const { smsId } = await h.api.requestCode(h.app(), PHONE);
    expect(await h.api.recordDelivery({ providerId: h.memory.last(PHONE)!.providerId, state: 'SUCCESS' })).toBe(true);
    expect(await h.api.recordDelivery({ providerId: 'mem-999', state: 'SUCCESS' })).toBe(false);
    expect(await h.api.status(h.app(), smsId)).toEqual({ state: 'SUCCESS', verified: false });
  });

  it('unknown, foreign and malformed ids are 10018 (404)', async () => {
    const h = smsHarness({ apps: [appConfig('app1'), appConfig('app2')] });
    const { smsId } = await h.api.requestCode(h.app(), PHONE);
    for (const id of ['999999', 'abc', '0', '1e3']) {
      const e = await errorOf(h.call('GET', `/1/querySms/${id}`));
      expect([e.code, e.status]).toEqual([10018, 404]);
    }
    expect((await errorOf(h.call('GET', `/1/querySms/${smsId}`, undefined, 'app2'))).code).toBe(10018);
  });

  it('status records expire after the retention', async () => {
    const h = smsHarness({ statusRetentionMs: HOUR });
    const { smsId } = await h.api.requestCode(h.app(), PHONE);
    h.clock.advance(HOUR);
    expect(await h.api.status(h.app(), smsId)).toBeNull();
  });

  it('smsIds are unique numbers across applications', async () => {
    const h = smsHarness({ apps: [appConfig('app1'), appConfig('app2')] });
    const a = await h.api.requestCode(h.app('app1'), PHONE);
    const b = await h.api.requestCode(h.app('app2'), PHONE);
    expect(a.smsId).not.toBe(b.smsId);
  });
});

describe('request guards', () => {
  it('missing or mistyped fields are 118 / 111 even without the router schema', async () => {
    const h = smsHarness();
    expect((await errorOf(h.call('POST', '/1/requestSmsCode', {}))).code).toBe(118);
    expect((await errorOf(h.call('POST', '/1/requestSmsCode', { mobilePhoneNumber: 13800138000 }))).code).toBe(111);
    expect((await errorOf(h.call('POST', '/1/requestSmsCode', { mobilePhoneNumber: PHONE, template: 5 }))).code).toBe(111);
    expect((await errorOf(h.call('POST', '/1/verifySmsCode', { mobilePhoneNumber: PHONE }))).code).toBe(118);
  });

  it('closing the feature unsubscribes from delivery reports', async () => {
    const h = smsHarness();
    const { smsId } = await h.api.requestCode(h.app(), PHONE);
    await h.feature.close?.();
    h.memory.deliver(h.memory.last(PHONE)!.providerId, 'SUCCESS');
    await new Promise((resolve) => setImmediate(resolve));
    expect(await h.api.status(h.app(), smsId)).toEqual({ state: 'SENDING', verified: false });
  });
});
