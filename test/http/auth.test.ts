import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import { requestSignature } from '../../src/http/signature.js';
import type { Feature } from '../../src/http/types.js';
import { type TestService, startTestService } from '../helpers/handle.js';
import { TEST_APP } from '../helpers/server.js';

const OTHER_APP = {
  applicationId: 'other-app',
  restApiKey: 'other-rest',
  masterKey: 'other-master',
  secretKey: 'other-secret-key',
  securityCode: 'other-code',
};

const echo = (): Feature => ({
  name: 'echo',
  routes: [
    {
      method: 'POST',
      path: '/1/echo',
      auth: 'app',
      body: 'json',
      handler: (ctx) => ({ body: { app: ctx.app.applicationId, mode: ctx.auth.mode, master: ctx.auth.isMaster, token: ctx.auth.sessionToken, got: ctx.body ?? null } }),
    },
    {
      method: 'GET',
      path: '/1/whoami',
      auth: 'app',
      body: 'none',
      handler: (ctx) => ({ body: { app: ctx.app.applicationId, mode: ctx.auth.mode, master: ctx.auth.isMaster } }),
    },
  ],
});

function signedHeaders(opts: { path: string; body?: string; timestamp: string; nonce?: string; securityCode?: string; secretKey?: string; brand?: string }) {
  const brand = opts.brand ?? 'Svc';
  const nonce = opts.nonce ?? 'AbCdEfGhIjKlMnOp';
  const sign = requestSignature({
    path: opts.path,
    timestamp: opts.timestamp,
    securityCode: opts.securityCode ?? TEST_APP.securityCode!,
    nonce,
    body: opts.body ?? '',
    sdkVersion: '10',
  });
  return {
    [`X-${brand}-Secret-Key`]: opts.secretKey ?? TEST_APP.secretKey!,
    [`X-${brand}-Safe-Timestamp`]: opts.timestamp,
    [`X-${brand}-Noncestr-Key`]: nonce,
    [`X-${brand}-SDK-Version`]: '10',
    [`X-${brand}-Safe-Sign`]: sign,
    [`X-${brand}-SDK-Type`]: 'nodejs',
  };
}

describe('authentication matrix', () => {
  const clock = new FakeClock(Date.UTC(2026, 5, 1, 12, 0, 0));
  const seconds = () => String(Math.round(clock.now() / 1000));
  let server: TestService;
  let bmobServer: TestService;

  beforeAll(async () => {
    server = startTestService({ clock, applications: [TEST_APP, OTHER_APP], features: [echo] });
    bmobServer = startTestService({ clock, applications: [TEST_APP], brands: ['Svc', 'Bmob'], features: [echo] });
  });
  afterAll(async () => {
    await server.close();
    await bmobServer.close();
  });

  const unauthorized = { status: 401, body: { error: 'unauthorized' } };

  it('refuses a request without keys', async () => {
    expect(await server.request('GET', '/1/whoami', { auth: false })).toMatchObject(unauthorized);
  });

  it('refuses a wrong REST key, an unknown application and a key of another application', async () => {
    const wrongKey = { 'X-Svc-Application-Id': TEST_APP.applicationId, 'X-Svc-REST-API-Key': 'nope' };
    const unknownApp = { 'X-Svc-Application-Id': 'nobody', 'X-Svc-REST-API-Key': TEST_APP.restApiKey };
    const crossed = { 'X-Svc-Application-Id': TEST_APP.applicationId, 'X-Svc-REST-API-Key': OTHER_APP.restApiKey };
    for (const headers of [wrongKey, unknownApp, crossed]) {
      expect(await server.request('GET', '/1/whoami', { auth: false, headers })).toMatchObject(unauthorized);
    }
  });

  it('accepts application id + REST key, and picks the right application', async () => {
    const res = await server.request('GET', '/1/whoami', {
      auth: false,
      headers: { 'x-svc-application-id': OTHER_APP.applicationId, 'X-SVC-REST-API-KEY': OTHER_APP.restApiKey },
    });
    expect(res.body).toEqual({ app: 'other-app', mode: 'rest', master: false });
  });

  it('accepts the master key alone or with the application id; refuses a wrong one', async () => {
    const alone = await server.request('GET', '/1/whoami', { auth: false, headers: { 'X-Svc-Master-Key': OTHER_APP.masterKey } });
    expect(alone.body).toEqual({ app: 'other-app', mode: 'master', master: true });
    const withId = await server.request('GET', '/1/whoami', { auth: 'master' });
    expect(withId.body).toMatchObject({ app: 'test-app', master: true });
    const wrong = await server.request('GET', '/1/whoami', {
      auth: false,
      headers: { 'X-Svc-Application-Id': TEST_APP.applicationId, 'X-Svc-Master-Key': OTHER_APP.masterKey },
    });
    expect(wrong).toMatchObject(unauthorized);
  });

  it('accepts each configured brand and refuses an unaccepted one', async () => {
    const bmob = { 'X-Bmob-Application-Id': TEST_APP.applicationId, 'X-Bmob-REST-API-Key': TEST_APP.restApiKey };
    expect((await bmobServer.request('GET', '/1/whoami', { auth: false, headers: bmob })).status).toBe(200);
    expect((await bmobServer.request('GET', '/1/whoami')).status).toBe(200);
    expect(await server.request('GET', '/1/whoami', { auth: false, headers: bmob })).toMatchObject(unauthorized);
  });

  it('treats the literal session tokens bmob and undefined as anonymous', async () => {
    for (const token of ['bmob', 'undefined']) {
      const res = await server.request('POST', '/1/echo', { body: {}, headers: { 'X-Svc-Session-Token': token } });
      expect(res.body.token).toBeNull();
    }
    const real = await server.request('POST', '/1/echo', { body: {}, headers: { 'X-Svc-Session-Token': 'abc' } });
    expect(real.body.token).toBe('abc');
  });

  describe('signed requests', () => {
    it('accepts a valid signature with the timestamp in seconds or milliseconds', async () => {
      const body = '{"name":"Bmob 后端云","score":5}';
      const res = await server.request('POST', '/1/echo', {
        auth: false,
        rawBody: body,
        headers: { 'content-type': 'application/json', ...signedHeaders({ path: '/1/echo', body, timestamp: seconds(), nonce: 'n1n1n1n1n1n1n1n1' }) },
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ app: 'test-app', mode: 'signed', got: { name: 'Bmob 后端云', score: 5 } });
      const ms = await server.request('GET', '/1/whoami', {
        auth: false,
        headers: signedHeaders({ path: '/1/whoami', timestamp: String(clock.now()), nonce: 'n2n2n2n2n2n2n2n2' }),
      });
      expect(ms.status).toBe(200);
    });

    it('signs the decoded path with trailing and double slashes kept', async () => {
      const res = await server.request('GET', '//1/whoami/', {
        auth: false,
        headers: signedHeaders({ path: '//1/whoami/', timestamp: seconds(), nonce: 'slashslashslash1' }),
      });
      expect(res.status).toBe(200);
    });

    it('refuses an expired or future timestamp outside the skew window', async () => {
      for (const offset of [-11_000, 11_000]) {
        const ts = String(Math.round((clock.now() + offset) / 1000));
        const res = await server.request('GET', '/1/whoami', { auth: false, headers: signedHeaders({ path: '/1/whoami', timestamp: ts, nonce: `skew${offset}xxxxxx`.slice(0, 16) }) });
        expect(res).toMatchObject(unauthorized);
      }
    });

    it('refuses a replay of the same request inside the window, but not a new request reusing the nonce', async () => {
      const headers = signedHeaders({ path: '/1/whoami', timestamp: seconds(), nonce: 'replayreplay1234' });
      expect((await server.request('GET', '/1/whoami', { auth: false, headers })).status).toBe(200);
      expect(await server.request('GET', '/1/whoami', { auth: false, headers })).toMatchObject(unauthorized);
      clock.advance(1000);
      const again = signedHeaders({ path: '/1/whoami', timestamp: seconds(), nonce: 'replayreplay1234' });
      expect((await server.request('GET', '/1/whoami', { auth: false, headers: again })).status).toBe(200);
    });

    it('refuses a tampered body, a tampered path and a wrong security code', async () => {
      const signedFor = signedHeaders({ path: '/1/echo', body: '{"a":1}', timestamp: seconds(), nonce: 'tamperbody123456' });
      const tamperedBody = await server.request('POST', '/1/echo', { auth: false, rawBody: '{"a":2}', headers: { 'content-type': 'application/json', ...signedFor } });
      expect(tamperedBody).toMatchObject(unauthorized);
      const tamperedPath = await server.request('GET', '/1/timestamp', {
        auth: false,
        headers: signedHeaders({ path: '/1/whoami', timestamp: seconds(), nonce: 'tamperpath123456' }),
      });
      expect(tamperedPath).toMatchObject(unauthorized);
      const wrongCode = await server.request('GET', '/1/whoami', {
        auth: false,
        headers: signedHeaders({ path: '/1/whoami', timestamp: seconds(), nonce: 'wrongcode1234567', securityCode: 'guess' }),
      });
      expect(wrongCode).toMatchObject(unauthorized);
    });

    it('accepts the Bmob brand for signed requests when enabled', async () => {
      const res = await bmobServer.request('GET', '/1/whoami', {
        auth: false,
        headers: signedHeaders({ path: '/1/whoami', timestamp: seconds(), nonce: 'bmobbrand1234567', brand: 'Bmob' }),
      });
      expect(res.body).toMatchObject({ mode: 'signed' });
    });

    it('writes nothing when a signed write is refused', async () => {
      const writes: unknown[] = [];
      const probe = startTestService({
        clock,
        features: [
          () => ({ name: 'probe', routes: [{ method: 'POST', path: '/1/probe', auth: 'app', body: 'json', handler: (ctx) => (writes.push(ctx.body), { body: {} }) }] }),
        ],
      });
      try {
        const headers = signedHeaders({ path: '/1/probe', body: '{"x":1}', timestamp: seconds(), nonce: 'nowrite123456789', securityCode: 'bad' });
        const res = await probe.request('POST', '/1/probe', { auth: false, rawBody: '{"x":1}', headers: { 'content-type': 'application/json', ...headers } });
        expect(res.status).toBe(401);
        expect(writes).toEqual([]);
      } finally {
        await probe.close();
      }
    });
  });
});
