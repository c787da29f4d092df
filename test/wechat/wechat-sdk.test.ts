import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeWechatPlatform, startFakeWechatPlatform } from '../../src/testing/fake-wechat-platform.js';
import { TEST_APP, type TestServer, startTestServer } from '../helpers/server.js';

const run = promisify(execFile);
const child = fileURLToPath(new URL('./sdk-auth-child.cjs', import.meta.url));

describe("the SDK's own User.auth() (hydrogen-js-sdk 2.7.3, unmodified) under a wx shim", () => {
  let platform: FakeWechatPlatform;
  let server: TestServer;
  beforeAll(async () => {
    platform = await startFakeWechatPlatform();
    server = await startTestServer({
      brands: ['Svc', 'Bmob'],
      applications: [{ ...TEST_APP, featureSettings: { wechat: { miniProgram: { appId: platform.appId, secret: platform.secret, apiBase: platform.url } } } }],
    });
  });
  afterAll(async () => {
    await server.close();
    await platform.close();
  });

  it('logs in by openid, reuses the cached user after checkSessionKey, and decrypts with its session key', async () => {
    const code = platform.loginCode('openid-sdk');
    const { stdout } = await run(process.execPath, [child, server.url, TEST_APP.secretKey!, TEST_APP.securityCode!, platform.appId, JSON.stringify([code])], { timeout: 20_000 });
    // The SDK logs to stdout itself; the child's result is the line marked RESULT.
    const out = JSON.parse(stdout.split('\n').find((line) => line.startsWith('RESULT '))!.slice(7));
    expect(out.requests).toEqual([
      `POST /1/wechatAppv1/${code}`,
      'POST /1/usersv1',
      'POST /1/wechatApp/checkSessionKey',
      'POST /1/wechatApp/decryptionv1',
    ]);
    expect(out.first).toMatchObject({ objectId: expect.any(String), sessionToken: expect.any(String), authData: { weapp: { openid: 'openid-sdk', sk: platform.sessionKeyOf('openid-sdk') } } });
    expect(out.openid).toBe('openid-sdk');
    expect(out.again.objectId).toBe(out.first.objectId);
    expect(out.decrypted).toMatchObject({ nickName: 'Mini' });
    const me = await server.request('GET', '/1/users/me', { headers: { 'X-Svc-Session-Token': out.first.sessionToken } });
    expect(me.body.objectId).toBe(out.first.objectId);
  });
});
