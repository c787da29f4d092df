import Database from 'better-sqlite3';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import { sqliteCounterStore } from '../../src/counters/sqlite-counter-store.js';
import type { CounterStore } from '../../src/counters/port.js';
import type { KvStore } from '../../src/kv/port.js';
import { sqliteKvStore } from '../../src/kv/sqlite-kv.js';
import { memorySmsTransport } from '../../src/sms/memory-transport.js';
import { PHONE } from './harness.js';
import { type TestService, startTestService } from '../helpers/handle.js';
import { TEST_APP } from '../helpers/server.js';

let server: TestService | undefined;
const dbs: Database.Database[] = [];
afterEach(async () => {
  await server?.close();
  server = undefined;
});
afterAll(() => dbs.forEach((db) => db.close()));

async function start(sms: Record<string, unknown> = {}, sqlite = false) {
  const clock = new FakeClock();
  const transport = memorySmsTransport();
  let kv: KvStore | undefined;
  let counters: CounterStore | undefined;
  if (sqlite) {
    const db = new Database(':memory:');
    dbs.push(db);
    kv = sqliteKvStore({ database: db });
    counters = sqliteCounterStore({ database: db });
  }
  server = await startTestService({
    clock,
    kv,
    counters,
    applications: [{ ...TEST_APP, settings: { sms } as never }],
    sms: { transport },
  });
  return { clock, transport, s: server };
}

describe('SMS over real HTTP', () => {
  it('requestSmsCode -> memory transport -> verifySmsCode -> querySms', async () => {
    const { transport, s } = await start();
    const sent = await s.request('POST', '/1/requestSmsCode', { body: { mobilePhoneNumber: PHONE } });
    expect(sent.status).toBe(200);
    expect(Object.keys(sent.body)).toEqual(['smsId']);
    expect(typeof sent.body.smsId).toBe('number');
    const code = transport.lastCode(PHONE)!;
    const verified = await s.request('POST', `/1/verifySmsCode/${code}`, { body: { mobilePhoneNumber: PHONE } });
    expect([verified.status, verified.body]).toEqual([200, { msg: 'ok' }]);
    const status = await s.request('GET', `/1/querySms/${sent.body.smsId}`);
    expect([status.status, status.body]).toEqual([200, { sms_state: 'SENDING', verify_state: true }]);
    const again = await s.request('POST', '/1/verifySmsCode', { body: { mobilePhoneNumber: PHONE, smsCode: code } });
    expect([again.status, again.body.code]).toEqual([400, 207]);
  });

  it('error statuses: 301, 10010 with Retry-After, 10018, 118 from the schema', async () => {
    const { clock, s } = await start();
    const phone = await s.request('POST', '/1/requestSmsCode', { body: { mobilePhoneNumber: '12345' } });
    expect([phone.status, phone.body]).toEqual([400, { code: 301, error: 'mobilePhoneNumber must be an 11-digit number' }]);
    await s.request('POST', '/1/requestSmsCode', { body: { mobilePhoneNumber: PHONE } });
    clock.advance(45_000);
    const limited = await s.request('POST', '/1/requestSmsCode', { body: { mobilePhoneNumber: PHONE } });
    expect([limited.status, limited.body.code, limited.headers.get('retry-after')]).toEqual([429, 10010, '15']);
    const unknown = await s.request('GET', '/1/querySms/123456789');
    expect([unknown.status, unknown.body]).toEqual([404, { code: 10018, error: 'smsId:123456789 not found.' }]);
    const missing = await s.request('POST', '/1/requestSms', { body: { mobilePhoneNumber: PHONE } });
    expect([missing.status, missing.body.code]).toEqual([400, 118]);
    const unauthenticated = await s.request('POST', '/1/requestSmsCode', { body: { mobilePhoneNumber: PHONE }, auth: false });
    expect(unauthenticated.status).toBe(401);
  });

  it('requestSms fills a notification template', async () => {
    const { transport, s } = await start({ templates: [{ name: 'pay', text: 'Paid ${amount}', kind: 'notification', approved: true }] });
    const res = await s.request('POST', '/1/requestSms', { body: { mobilePhoneNumber: PHONE, template: 'pay', content: { amount: 12 } } });
    expect(res.status).toBe(200);
    expect(transport.last(PHONE)!.text).toBe('Paid 12');
  });

  it.each([false, true])('1,000 concurrent HTTP requests for one number: exactly one 200 (sqlite stores: %s)', async (sqlite) => {
    const { transport, s } = await start({ quota: 'unlimited' }, sqlite);
    const replies = await Promise.all(
      Array.from({ length: 1000 }, () => s.request('POST', '/1/requestSmsCode', { body: { mobilePhoneNumber: PHONE } })),
    );
    expect(replies.filter((r) => r.status === 200)).toHaveLength(1);
    const refused = replies.filter((r) => r.status !== 200);
    expect(refused.every((r) => r.status === 429 && r.body.code === 10010 && r.headers.get('retry-after') === '60')).toBe(true);
    expect(transport.messages).toHaveLength(1);
  }, 60_000);
});
