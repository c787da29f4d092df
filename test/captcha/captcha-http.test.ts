import { afterEach, describe, expect, it } from 'vitest';
import type { Application, ApplicationConfig } from '../../src/app/application.js';
import { createCanvasRenderer } from '../../src/captcha/canvas-renderer.js';
import type { CaptchaApi } from '../../src/captcha/captcha-feature.js';
import type { CaptchaRenderer } from '../../src/captcha/renderer.js';
import { FakeClock } from '../../src/core/clock.js';
import { seededRandom } from '../../src/core/random.js';
import { TEST_APP, type TestServer, appHeaders, startTestServer } from '../helpers/server.js';
import { readPngHeader } from './png-header.js';

// The captcha never touches table storage: if the memory engine cannot load (work in progress
// elsewhere), a stub keeps this suite independent of it. With a working engine the real one is used.
const OTHER_APP: ApplicationConfig = { applicationId: 'other-app', restApiKey: 'other-rest', masterKey: 'other-master', secretKey: 'other-secret-key' };
const NO_SECRET_APP: ApplicationConfig = { applicationId: 'plain-app', restApiKey: 'plain-rest', masterKey: 'plain-master' };

/** The real PNG renderer, remembering each text so tests can answer. */
function answeringRenderer(): CaptchaRenderer & { last(): string } {
  const inner = createCanvasRenderer();
  let text = '';
  return {
    render(t, w, h, r) {
      text = t;
      return inner.render(t, w, h, r);
    },
    last: () => text,
  };
}

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(applications: ApplicationConfig[] = [TEST_APP, OTHER_APP, NO_SECRET_APP]) {
  const clock = new FakeClock();
  const renderer = answeringRenderer();
  server = await startTestServer({ applications, clock, random: seededRandom(5), captcha: { renderer } });
  const s = server;
  const api = s.service.registry.captcha;
  const app = (id: string) => s.service.applications.get(id) as Application;
  /** requestCaptcha as `config`'s application; returns the reply and the answer. */
  const request = async (body?: unknown, config: ApplicationConfig = TEST_APP) => {
    const res = await s.request<{ captcha_token: string; captcha_url: string }>('POST', '/1/requestCaptcha', {
      auth: false,
      headers: appHeaders(config),
      ...(body === undefined ? {} : { body }),
    });
    return { ...res, answer: renderer.last() };
  };
  const verify = (captcha_code: unknown, captcha_token: unknown, config: ApplicationConfig = TEST_APP) =>
    s.request('POST', '/1/verifyCaptcha', { auth: false, headers: appHeaders(config), body: { captcha_code, captcha_token } });
  /** GET the image with no credentials at all, as an <img> tag would. */
  const image = async (captchaUrl: string) => {
    const res = await fetch(captchaUrl);
    return { status: res.status, headers: res.headers, bytes: new Uint8Array(await res.arrayBuffer()) };
  };
  return { s, clock, api: () => api as CaptchaApi, app, request, verify, image };
}

describe('POST /1/requestCaptcha', () => {
  it('replies captcha_token and a captcha_url carrying the secret key and the token', async () => {
    const { s, request } = await start();
    const res = await request();
    expect(res.status).toBe(200);
    expect(res.body.captcha_token).toMatch(/^[0-9A-Za-z]{20}$/);
    expect(res.body.captcha_url).toBe(`${s.url}/1/captchaImage?secretKey=${TEST_APP.secretKey}&token=${res.body.captcha_token}`);
  });

  it('accepts an empty body, an empty object and each parameter at its bounds', async () => {
    const { s, request } = await start();
    const empty = await s.request('POST', '/1/requestCaptcha');
    expect(empty.status).toBe(200);
    expect((await request({})).status).toBe(200);
    expect((await request({ width: 60, height: 30, size: 3, ttl: 60 })).status).toBe(200);
    expect((await request({ width: 200, height: 100, size: 6, ttl: 180 })).status).toBe(200);
  });

  it('refuses out-of-range values with 11005 and wrong types with 111, naming the parameter', async () => {
    const { request } = await start();
    for (const [name, value] of [['width', 59], ['width', 201], ['height', 29], ['height', 101], ['size', 2], ['size', 7], ['ttl', 59], ['ttl', 181]] as const) {
      const res = await request({ [name]: value });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 11005 });
      expect((res.body as unknown as { error: string }).error).toContain(name);
    }
    for (const bad of ['85', 85.5, null, true]) {
      const res = await request({ width: bad });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 111 });
      expect((res.body as unknown as { error: string }).error).toContain('width');
    }
  });

  it('needs the application keys (401 without them)', async () => {
    const { s } = await start();
    expect((await s.request('POST', '/1/requestCaptcha', { auth: false, body: {} })).status).toBe(401);
  });

  it('limits requests per client address (10076 with Retry-After), without counting refused bodies', async () => {
    const limited = { ...TEST_APP, settings: { captcha: { requestLimits: [{ limit: 3, windowMs: 60_000 }] } } };
    const { clock, request } = await start([limited]);
    expect((await request({ width: 10 })).status).toBe(400);
    for (let i = 0; i < 3; i++) expect((await request()).status).toBe(200);
    const refused = await request();
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ code: 10076 });
    expect(refused.headers.get('retry-after')).toBe('60');
    clock.advance(60_000);
    expect((await request()).status).toBe(200);
  });
});

describe('GET /1/captchaImage', () => {
  it('serves the PNG of the requested size with no-store headers, the same bytes on every fetch', async () => {
    const { request, image } = await start();
    for (const [width, height, size] of [[85, 30, 4], [120, 40, 5], [200, 100, 6]] as const) {
      const { body } = await request({ width, height, size });
      const first = await image(body.captcha_url);
      expect(first.status).toBe(200);
      expect(first.headers.get('content-type')).toBe('image/png');
      expect(first.headers.get('cache-control')).toBe('no-store, no-cache, must-revalidate');
      expect(first.headers.get('pragma')).toBe('no-cache');
      expect(readPngHeader(first.bytes)).toMatchObject({ width, height });
      expect(Buffer.from((await image(body.captcha_url)).bytes).equals(Buffer.from(first.bytes))).toBe(true);
    }
  });

  it('answers a JSON 11010 for an unknown token, a wrong secret key or a missing parameter', async () => {
    const { s, request, image } = await start();
    const { body } = await request();
    const cases = [
      `/1/captchaImage?secretKey=${TEST_APP.secretKey}&token=${'A'.repeat(20)}`,
      `/1/captchaImage?secretKey=wrong-secret-key&token=${body.captcha_token}`,
      `/1/captchaImage?secretKey=${OTHER_APP.secretKey}&token=${body.captcha_token}`,
      `/1/captchaImage?token=${body.captcha_token}`,
      `/1/captchaImage?secretKey=${TEST_APP.secretKey}`,
      `/1/captchaImage?applicationId=${TEST_APP.applicationId}&token=${body.captcha_token}`,
    ];
    for (const path of cases) {
      const res = await image(s.url + path);
      expect(res.status, path).toBe(400);
      expect(res.headers.get('content-type')).toContain('application/json');
      expect(JSON.parse(Buffer.from(res.bytes).toString())).toMatchObject({ code: 11010 });
    }
  });

  it('names an application without a secret key by applicationId', async () => {
    const { s, request, image } = await start();
    const { body } = await request({}, NO_SECRET_APP);
    expect(body.captcha_url).toBe(`${s.url}/1/captchaImage?applicationId=plain-app&token=${body.captcha_token}`);
    expect((await image(body.captcha_url)).status).toBe(200);
  });

  it('stops serving once the ttl has passed on the clock', async () => {
    const { request, image, clock } = await start();
    const { body } = await request({ ttl: 120 });
    clock.advance(119_999);
    expect((await image(body.captcha_url)).status).toBe(200);
    clock.advance(1);
    expect((await image(body.captcha_url)).status).toBe(400);
  });
});

describe('POST /1/verifyCaptcha', () => {
  it('returns a validate_token for the right code in any case; the SMS api consumes it exactly once', async () => {
    const { request, verify, api, app, image } = await start();
    const { body, answer } = await request();
    const res = await verify(answer.toUpperCase(), body.captcha_token);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['validate_token']);
    const vt = (res.body as { validate_token: string }).validate_token;
    expect(await api().consumeValidateToken(app(OTHER_APP.applicationId), vt)).toBe(false);
    expect(await api().consumeValidateToken(app(TEST_APP.applicationId), vt)).toBe(true);
    expect(await api().consumeValidateToken(app(TEST_APP.applicationId), vt)).toBe(false);
    expect((await image(body.captcha_url)).status).toBe(400);
  });

  it('allows one guess: wrong code 11011, then 11010 even for the right code', async () => {
    const { request, verify } = await start();
    const { body, answer } = await request();
    const wrong = await verify(`${answer}x`, body.captcha_token);
    expect(wrong.status).toBe(400);
    expect(wrong.body).toMatchObject({ code: 11011 });
    expect((await verify(answer, body.captcha_token)).body).toMatchObject({ code: 11010 });
  });

  it('gives exactly one validate_token to 50 concurrent verifies of one token', async () => {
    const { request, verify } = await start();
    const { body, answer } = await request();
    const results = await Promise.all(Array.from({ length: 50 }, () => verify(answer, body.captcha_token)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => (r.body as { code?: number }).code === 11010)).toHaveLength(49);
  });

  it('refuses a token issued to another application (11010) and leaves it usable by its own', async () => {
    const { request, verify } = await start();
    const { body, answer } = await request();
    expect((await verify(answer, body.captcha_token, OTHER_APP)).body).toMatchObject({ code: 11010 });
    expect((await verify(answer, body.captcha_token)).status).toBe(200);
  });

  it('expires the captcha after ttl seconds (11010)', async () => {
    const { request, verify, clock } = await start();
    const { body, answer } = await request();
    clock.advance(60_000);
    expect((await verify(answer, body.captcha_token)).body).toMatchObject({ code: 11010 });
  });

  it('names a missing field (118) or a wrong type (111) without consuming the token', async () => {
    const { s, request, verify } = await start();
    const { body, answer } = await request();
    const missing = await s.request('POST', '/1/verifyCaptcha', { body: { captcha_token: body.captcha_token } });
    expect(missing.body).toMatchObject({ code: 118 });
    expect((missing.body as { error: string }).error).toContain('captcha_code');
    expect((await verify(1234, body.captcha_token)).body).toMatchObject({ code: 111 });
    expect((await verify(answer, body.captcha_token)).status).toBe(200);
  });
});
