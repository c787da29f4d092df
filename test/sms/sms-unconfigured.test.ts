import { afterEach, describe, expect, it } from 'vitest';
import { createSmsFeature } from '../../src/sms/sms-feature.js';
import { memorySmsTransport } from '../../src/sms/memory-transport.js';
import { PHONE } from './harness.js';
import { type TestServer, startTestServer } from '../helpers/server.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('SMS without a transport', () => {
  it('fix 11.7: every SMS route answers 11007 (no SMS transport configured), not 404 "no route"', async () => {
    server = await startTestServer();
    const calls: Array<[string, string, Record<string, unknown> | undefined]> = [
      ['POST', '/1/requestSmsCode', { mobilePhoneNumber: PHONE }],
      ['POST', '/1/requestSmsCode', undefined],
      ['POST', '/1/verifySmsCode/123456', { mobilePhoneNumber: PHONE }],
      ['POST', '/1/verifySmsCode', { mobilePhoneNumber: PHONE, smsCode: '123456' }],
      ['POST', '/1/requestSms', { mobilePhoneNumber: PHONE, template: 'x', content: {} }],
      ['GET', '/1/querySms/1', undefined],
    ];
    for (const [method, path, body] of calls) {
      const res = await server.request(method, path, { body });
      expect([res.status, res.body.code], `${method} ${path}`).toEqual([403, 11007]);
      expect(res.body.error, path).toContain('no SMS transport configured');
    }
  });

  it('fix 11.7: the stand-in still checks credentials', async () => {
    server = await startTestServer();
    const res = await server.request('POST', '/1/requestSmsCode', { body: { mobilePhoneNumber: PHONE }, auth: false });
    expect(res.status).toBe(401);
  });

  it("fix 11.7: a host's own SMS feature on the same paths wins over the stand-in", async () => {
    const transport = memorySmsTransport();
    server = await startTestServer({ features: [(ctx) => createSmsFeature(ctx, { transport })] });
    const res = await server.request('POST', '/1/requestSmsCode', { body: { mobilePhoneNumber: PHONE } });
    expect(res.status).toBe(200);
    expect(transport.lastCode(PHONE)).toMatch(/^\d+$/);
  });
});
