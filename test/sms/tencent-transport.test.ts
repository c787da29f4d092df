import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import { type TencentSmsOptions, tencentSmsTransport } from '../../src/sms/tencent/tencent-transport.js';
import { tc3Authorization } from '../../src/sms/tencent/tc3-signature.js';
import type { SmsMessage } from '../../src/sms/transport.js';
import { type FakeTencent, startFakeTencent } from './fixtures/fake-tencent.js';
import { PHONE, appConfig, errorOf, smsHarness } from './harness.js';

const clock = new FakeClock(Date.UTC(2026, 0, 1, 12));
const SECRET_ID = 'AKIDtestsecretid0000000000000000';
const SECRET_KEY = 'testsecretkey00000000000000000000';
let fake: FakeTencent;

beforeAll(async () => {
  fake = await startFakeTencent({ secrets: { [SECRET_ID]: SECRET_KEY }, smsSdkAppId: '1400006666', clock });
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.mode = 'ok';
});

const options = (extra: Partial<TencentSmsOptions> = {}): TencentSmsOptions => ({
  secretId: SECRET_ID,
  secretKey: SECRET_KEY,
  smsSdkAppId: '1400006666',
  signName: 'svcb',
  templateIds: { default: '1110001', pay: '1110002' },
  endpoint: fake.url,
  clock,
  timeoutMs: 2000,
  ...extra,
});

const message: SmsMessage = {
  to: PHONE,
  text: 'Your code is 123456, valid for 5 minutes. Do not share it.',
  signature: '【svcb】',
  templateName: 'default',
  variables: { code: '123456' },
  applicationId: 'app1',
  smsId: 42,
};

describe('tencentSmsTransport against a local fake of the provider', () => {
  it('signs with TC3-HMAC-SHA256 and returns the SerialNo', async () => {
    const result = await tencentSmsTransport(options()).send(message);
    expect(result.providerId).toMatch(/^2640:\d{20}$/);
    expect(fake.accepted.at(-1)).toEqual({
      PhoneNumberSet: ['+8613800138000'],
      SmsSdkAppId: '1400006666',
      SignName: 'svcb',
      TemplateId: '1110001',
      TemplateParamSet: ['123456'],
      SessionContext: '42',
    });
  });

  it('the fake really verifies: a body changed after signing is refused (AuthFailure.SignatureFailure)', async () => {
    const tamper: typeof fetch = (input, init) => fetch(input, { ...init, body: String(init?.body).replace('123456', '654321') });
    const e = await errorOf(tencentSmsTransport(options({ fetch: tamper })).send(message));
    expect([e.code, e.status]).toEqual([11044, 424]);
    expect(e.message).toMatch(/^the SMS provider failed: tencent: AuthFailure\.SignatureFailure /);
  });

  it('a wrong secret key, an unknown secret id and a stale timestamp are refused', async () => {
    expect((await errorOf(tencentSmsTransport(options({ secretKey: 'wrong' })).send(message))).message).toContain('AuthFailure.SignatureFailure');
    expect((await errorOf(tencentSmsTransport(options({ secretId: 'AKIDunknown' })).send(message))).message).toContain('AuthFailure.SecretIdNotFound');
    const stale = new FakeClock(clock.now() - 301_000);
    expect((await errorOf(tencentSmsTransport(options({ clock: stale })).send(message))).message).toContain('AuthFailure.SignatureExpire');
  });

  it('a per-number failure in SendStatusSet is 11044 with the provider code', async () => {
    fake.mode = 'phone-limit';
    const e = await errorOf(tencentSmsTransport(options()).send(message));
    expect(e.message).toContain('LimitExceeded.PhoneNumberDailyLimit');
  });

  it('no reply within the timeout is 11044', async () => {
    fake.mode = 'slow';
    const e = await errorOf(tencentSmsTransport(options({ timeoutMs: 100 })).send(message));
    expect(e.message).toBe('the SMS provider failed: tencent: no reply within 100 ms');
  });

  it('a non-JSON reply, a closed port and an unmapped template are 11044', async () => {
    fake.mode = 'html';
    expect((await errorOf(tencentSmsTransport(options()).send(message))).message).toContain('HTTP 502 with a non-JSON reply');
    expect((await errorOf(tencentSmsTransport(options({ endpoint: 'http://127.0.0.1:1' })).send(message))).code).toBe(11044);
    expect((await errorOf(tencentSmsTransport(options()).send({ ...message, templateName: 'other' }))).message).toContain("no TemplateId configured for template 'other'");
  });

  it('sends E.164 numbers as they are and positional parameters in placeholder order', async () => {
    await tencentSmsTransport(options()).send({ ...message, to: '+447700900123', templateName: 'pay', variables: { card: '6222', amount: '12.5' } });
    expect(fake.accepted.at(-1)).toMatchObject({ PhoneNumberSet: ['+447700900123'], TemplateId: '1110002', TemplateParamSet: ['6222', '12.5'] });
  });

  it('delivery callbacks reach the listeners', () => {
    const transport = tencentSmsTransport(options());
    const seen: unknown[] = [];
    transport.onDeliveryReport!((r) => seen.push(r));
    const n = transport.receiveReports([
      { user_receive_time: '2026-01-01 12:00:05', nationcode: '86', mobile: PHONE, report_status: 'SUCCESS', errmsg: 'DELIVRD', description: 'delivered', sid: '2640:1' },
      { report_status: 'FAIL', sid: '2640:2', errmsg: 'MK:0001' },
      { report_status: 'WHAT', sid: '2640:3' },
      'junk',
    ]);
    expect(n).toBe(2);
    expect(seen).toEqual([
      { providerId: '2640:1', state: 'SUCCESS', detail: 'DELIVRD' },
      { providerId: '2640:2', state: 'FAIL', detail: 'MK:0001' },
    ]);
  });

  it('the signer is deterministic for fixed inputs', () => {
    const a = tc3Authorization({ secretId: 'id', secretKey: 'key', service: 'sms', host: 'sms.tencentcloudapi.com', contentType: 'application/json; charset=utf-8', payload: '{}', timestamp: 1_767_268_800 });
    expect(a).toMatch(/^TC3-HMAC-SHA256 Credential=id\/2026-01-01\/sms\/tc3_request, SignedHeaders=content-type;host, Signature=[0-9a-f]{64}$/);
    expect(tc3Authorization({ secretId: 'id', secretKey: 'key', service: 'sms', host: 'sms.tencentcloudapi.com', contentType: 'application/json; charset=utf-8', payload: '{}', timestamp: 1_767_268_800 })).toBe(a);
  });
});

describe('the SMS feature over the Tencent transport', () => {
  const harness = () => {
    const h0 = smsHarness({ apps: [appConfig('app1', { quota: 5 })], transport: tencentSmsTransport(options({ timeoutMs: 100 })) });
    h0.clock.set(clock.now());
    return h0;
  };

  it('a code sent through the provider verifies; its delivery report updates the status', async () => {
    const transport = tencentSmsTransport(options());
    const h = smsHarness({ transport });
    h.clock.set(clock.now());
    const { smsId } = await h.api.requestCode(h.app(), PHONE);
    const sent = fake.accepted.at(-1)!;
    expect(sent.SessionContext).toBe(String(smsId));
    await h.api.verifyCode(h.app(), PHONE, (sent.TemplateParamSet as string[])[0]!);
    const serial = (await h.api.status(h.app(), smsId))!;
    expect(serial).toEqual({ state: 'SENDING', verified: true });
    transport.receiveReports([{ sid: `2640:${String(fake.accepted.length).padStart(20, '0')}`, report_status: 'SUCCESS' }]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(await h.api.status(h.app(), smsId)).toEqual({ state: 'SUCCESS', verified: true });
  });

  it.each(['phone-limit', 'slow', 'html'] as const)('provider failure (%s): 11044, quota not charged, nothing stored', async (mode) => {
    const h = harness();
    fake.mode = mode;
    const before = fake.accepted.length;
    const e = await errorOf(h.call('POST', '/1/requestSmsCode', { mobilePhoneNumber: PHONE }));
    expect([e.code, e.status]).toEqual([11044, 424]);
    expect(await h.api.quota(h.app())).toEqual({ used: 0, remaining: 5 });
    expect(fake.accepted.length).toBe(before);
    if (mode === 'phone-limit') {
      const code = (fake.received.at(-1)!.TemplateParamSet as string[])[0]!;
      expect(await h.api.redeemCode(h.app(), code)).toBeNull();
      expect((await errorOf(h.api.verifyCode(h.app(), PHONE, code))).code).toBe(207);
    }
  });
});
