import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import { svcError } from '../../src/core/errors.js';
import type { Feature } from '../../src/http/types.js';
import { type TestService, startTestService } from '../helpers/handle.js';

describe('error model and request edges', () => {
  const clock = new FakeClock(Date.UTC(2026, 0, 2, 3, 4, 5, 678));
  const logged: Array<{ message: string; fields?: Record<string, unknown> }> = [];
  const written: unknown[] = [];
  let server: TestService;

  const probe = (): Feature => ({
    name: 'probe',
    routes: [
      { method: 'POST', path: '/1/probe', auth: 'app', body: 'json', handler: (ctx) => (written.push(ctx.body), { body: { ok: true } }) },
      {
        method: 'POST',
        path: '/1/validated',
        auth: 'app',
        body: 'json',
        schema: {
          type: 'object',
          properties: { phone: { type: 'string' }, count: { type: 'integer', minimum: 1 } },
          required: ['phone'],
        },
        handler: (ctx) => (written.push(ctx.body), { body: { ok: true } }),
      },
      { method: 'GET', path: '/1/boom', auth: 'app', body: 'none', handler: () => { throw new Error('secret internal detail'); } },
      { method: 'GET', path: '/1/coded', auth: 'app', body: 'none', handler: () => { throw svcError('objectNotFound', 'abc'); } },
    ],
  });

  beforeAll(async () => {
    server = startTestService({
      clock,
      bodyLimit: 4096,
      maxBodyDepth: 8,
      features: [probe],
      logger: { debug() {}, info() {}, warn() {}, error: (message, fields) => logged.push({ message, fields }) },
    });
  });
  afterAll(() => server.close());

  it('answers GET /1/timestamp with seconds and the formatted time', async () => {
    const res = await server.request('GET', '/1/timestamp');
    expect(res.body).toEqual({ timestamp: Math.floor(clock.now() / 1000), datetime: '2026-01-02 03:04:05' });
  });

  it('answers an unknown route with 404 and a code', async () => {
    const res = await server.request('GET', '/1/nothing/here');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ code: 11001, error: 'no route for GET /1/nothing/here.' });
  });

  it('answers malformed JSON and a wrong content type with 107 and writes nothing', async () => {
    const bad = await server.request('POST', '/1/probe', { rawBody: '{"a":', headers: { 'content-type': 'application/json' } });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe(107);
    const notJson = await server.request('POST', '/1/probe', { rawBody: '{"a":1}', headers: { 'content-type': 'text/plain' } });
    expect(notJson.body.code).toBe(107);
    const array = await server.request('POST', '/1/probe', { body: [1, 2] });
    expect(array.body.code).toBe(107);
    expect(written).toEqual([]);
  });

  it('refuses bodies over the limit with 413 and code 11002', async () => {
    const res = await server.request('POST', '/1/probe', { body: { big: 'x'.repeat(5000) } });
    expect(res.status).toBe(413);
    expect(res.body.code).toBe(11002);
    expect(written).toEqual([]);
  });

  it('refuses __proto__, constructor and prototype keys at any depth', async () => {
    for (const raw of ['{"__proto__":{"admin":true}}', '{"a":{"b":[{"constructor":1}]}}', '{"x":{"prototype":{}}}']) {
      const res = await server.request('POST', '/1/probe', { rawBody: raw, headers: { 'content-type': 'application/json' } });
      expect(res.body.code).toBe(11004);
    }
    expect(written).toEqual([]);
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });

  it('refuses deeply nested bodies', async () => {
    const deep = '{"a":'.repeat(20) + '1' + '}'.repeat(20);
    const res = await server.request('POST', '/1/probe', { rawBody: deep, headers: { 'content-type': 'application/json' } });
    expect(res.body.code).toBe(11003);
  });

  it('validates bodies against the route schema, naming the field', async () => {
    const missing = await server.request('POST', '/1/validated', { body: {} });
    expect(missing.body).toEqual({ code: 118, error: 'param phone is need.' });
    const wrongType = await server.request('POST', '/1/validated', { body: { phone: 13800138000 } });
    expect(wrongType.body.code).toBe(111);
    expect(wrongType.body.error).toContain("'phone'");
    const range = await server.request('POST', '/1/validated', { body: { phone: 'x', count: 0 } });
    expect(range.body.code).toBe(11005);
    expect(range.body.error).toContain('count');
    expect(written).toEqual([]);
    expect((await server.request('POST', '/1/validated', { body: { phone: 'x' } })).body).toEqual({ ok: true });
  });

  it('answers internal errors with 500 and no detail, and logs them', async () => {
    const res = await server.request('GET', '/1/boom');
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: 'internal server error' });
    expect(res.text).not.toContain('secret internal detail');
    expect(logged.at(-1)?.message).toBe('internal error');
  });

  it('sends coded errors as {code, error} with their status', async () => {
    const res = await server.request('GET', '/1/coded');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ code: 101, error: 'object not found for abc.' });
  });

  it('answers CORS preflights without credentials', async () => {
    const res = await server.request('OPTIONS', '/1/classes/Game', { auth: false, headers: { origin: 'http://x.test' } });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-headers')).toContain('x-svc-safe-sign');
  });
});
