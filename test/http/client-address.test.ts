import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { getConnInfo } from '@hono/node-server/conninfo';
import Fastify from 'fastify';
import { type Context, Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import type { ApplicationConfig } from '../../src/app/application.js';
import { lineLogger } from '../../src/core/logger.js';
import { limitedAddress } from '../../src/counters/address-limit.js';
import { svcbaseFastify } from '../../src/fastify.js';
import { type FetchHandlerOptions, toFetchHandler } from '../../src/fetch.js';
import { compileTrustProxy } from '../../src/http/client-address.js';
import type { FeatureFactory } from '../../src/service.js';
import { memoryStorage } from '../../src/memory.js';
import { type NodeListenerOptions, toNodeListener } from '../../src/node.js';
import { createService } from '../../src/service.js';
import { TEST_APP, appHeaders } from '../helpers/server.js';

/** A route that says which client address and base URL the service saw. */
const whoami: FeatureFactory = () => ({
  name: 'whoami',
  routes: [{ method: 'GET', path: '/1/whoami', auth: 'none', body: 'none', handler: (rc) => ({ body: { address: rc.remoteAddress ?? null, baseUrl: rc.baseUrl } }) }],
});
const LIMITED: ApplicationConfig = { ...TEST_APP, settings: { captcha: { requestLimits: [{ limit: 1, windowMs: 60_000 }] } } };

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

function service(lines: string[] = []) {
  const s = createService({ storage: memoryStorage(), applications: [LIMITED], features: [whoami], logger: lineLogger((l) => lines.push(l), 'warn') });
  closers.push(() => s.close());
  return s;
}

async function nodeServer(options: NodeListenerOptions): Promise<string> {
  const server = createServer(toNodeListener(service(), options));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function whoamiAt(url: string, headers: Record<string, string> = {}) {
  return (await (await fetch(`${url}/1/whoami`, { headers })).json()) as { address: string | null; baseUrl: string };
}

const requestCaptcha = (url: string, headers: Record<string, string> = {}) =>
  fetch(`${url}/1/requestCaptcha`, { method: 'POST', headers: { ...appHeaders(), 'content-type': 'application/json', ...headers }, body: '{}' }).then((r) => r.status);

describe('fix 11.6: client addresses (node:http / Express listener)', () => {
  it('fix 11.6: X-Forwarded-For names the client only when the socket peer is a trusted proxy', async () => {
    const trusted = await nodeServer({ trustProxy: ['127.0.0.1'] });
    expect((await whoamiAt(trusted, { 'x-forwarded-for': '198.51.100.7' })).address).toBe('198.51.100.7');
    // A client cannot hide behind a spoofed chain: only the hop our proxy appended is believed.
    expect((await whoamiAt(trusted, { 'x-forwarded-for': '6.6.6.6, 198.51.100.7' })).address).toBe('198.51.100.7');
    expect((await whoamiAt(trusted)).address).toBe('127.0.0.1');
    // Issue 35: links never take their base from a request header, a trusted proxy's neither (set publicUrl).
    expect((await whoamiAt(trusted, { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'api.example.com' })).baseUrl).toBe(trusted);
  });

  it('fix 11.6: spoofed X-Forwarded-For from an untrusted peer is ignored', async () => {
    for (const options of [{}, { trustProxy: false }, { trustProxy: ['10.0.0.0/8', '::2'] }] as NodeListenerOptions[]) {
      const url = await nodeServer(options);
      const seen = await whoamiAt(url, { 'x-forwarded-for': '198.51.100.7', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'evil.example' });
      expect(seen.address).toBe('127.0.0.1');
      expect(seen.baseUrl).toBe(url);
    }
  });

  it('fix 11.6: a hop count trusts that many proxies and a malformed hop stops the walk', async () => {
    const one = await nodeServer({ trustProxy: 1 });
    expect((await whoamiAt(one, { 'x-forwarded-for': '6.6.6.6, 198.51.100.7' })).address).toBe('198.51.100.7');
    const two = await nodeServer({ trustProxy: 2 });
    expect((await whoamiAt(two, { 'x-forwarded-for': '6.6.6.6, 198.51.100.7' })).address).toBe('6.6.6.6');
    const all = await nodeServer({ trustProxy: true });
    expect((await whoamiAt(all, { 'x-forwarded-for': 'not-an-ip, 198.51.100.7' })).address).toBe('198.51.100.7');
  });

  it('fix 11.6: clients behind a trusted proxy get separate captcha request limits', async () => {
    const url = await nodeServer({ trustProxy: ['127.0.0.1'] });
    expect(await requestCaptcha(url, { 'x-forwarded-for': '198.51.100.1' })).toBe(200);
    expect(await requestCaptcha(url, { 'x-forwarded-for': '198.51.100.2' })).toBe(200);
    expect(await requestCaptcha(url, { 'x-forwarded-for': '198.51.100.1' })).toBe(429);
  });

  it('fix 11.6: a bad trustProxy entry fails at startup with a clear message', () => {
    expect(() => compileTrustProxy(['10.0.0.0/40'])).toThrow(/\[svcbase\] \[trustProxy\] '10.0.0.0\/40'/);
    expect(() => compileTrustProxy(-1)).toThrow(/hop count/);
    expect(compileTrustProxy(['127.0.0.1'])('::ffff:127.0.0.1', 0)).toBe(true);
  });
});

describe('fix 11.6: client addresses (fetch handler)', () => {
  async function honoServer(lines: string[], options: FetchHandlerOptions<Context>) {
    const handler = toFetchHandler(service(lines), options);
    const app = new Hono();
    app.all('/*', (c) => handler(c.req.raw, c));
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  it('fix 11.6: clientAddress(request, context) supplies the address (Hono connection info)', async () => {
    const url = await honoServer([], { clientAddress: (_request, c) => (c ? getConnInfo(c).remote.address : undefined) });
    expect((await whoamiAt(url)).address).toBe('127.0.0.1');
    expect(await requestCaptcha(url)).toBe(200);
    expect(await requestCaptcha(url)).toBe(429);
  });

  it('fix 11.6: without clientAddress no client shares a bucket: the per-address limit is skipped and logged once', async () => {
    const lines: string[] = [];
    const url = await honoServer(lines, {});
    expect((await whoamiAt(url)).address).toBeNull();
    for (let i = 0; i < 5; i++) expect(await requestCaptcha(url)).toBe(200);
    expect(lines.filter((l) => l.includes('captcha.requestLimits'))).toHaveLength(1);
    expect(lines[0]).toMatch(/^WARN requests without a client address skip the per-address limit captcha\.requestLimits/);
  });
});

describe('fix 11.6: login throttling without a client address', () => {
  it('fix 11.6: the address limit is skipped (no shared bucket) while the account limit still counts', async () => {
    const throttled: ApplicationConfig = {
      ...TEST_APP,
      settings: { users: { loginThrottle: { enabled: true, address: [{ limit: 2, windowMs: 60_000 }], account: [{ limit: 3, windowMs: 60_000 }] } } },
    };
    const lines: string[] = [];
    const s = createService({ storage: memoryStorage(), applications: [throttled], users: { scrypt: { N: 1024, r: 8, p: 1 } }, logger: lineLogger((l) => lines.push(l), 'warn') });
    closers.push(() => s.close());
    const handler = toFetchHandler(s);
    const login = (username: string) =>
      handler(new Request('http://svc.test/1/login', { method: 'POST', headers: { ...appHeaders(), 'content-type': 'application/json' }, body: JSON.stringify({ username, password: 'wrong' }) }))
        .then(async (r) => ((await r.json()) as { code: number }).code);
    // Five different accounts from "nobody knows where": none is refused for the address.
    for (let i = 0; i < 5; i++) expect(await login(`someone-${i}`)).not.toBe(11050);
    for (let i = 0; i < 3; i++) expect(await login('target')).not.toBe(11050);
    expect(await login('target')).toBe(11050);
    expect(lines.filter((l) => l.includes('users.loginThrottle.address'))).toHaveLength(1);
  });
});

describe('fix 11.6: client addresses (Fastify)', () => {
  async function fastifyServer(trustProxy: boolean | string) {
    const app = Fastify({ trustProxy });
    await app.register(svcbaseFastify, { service: service() });
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    closers.push(() => app.close());
    return url;
  }

  it('fix 11.6: Fastify request.ip is the client address, X-Forwarded-For only under its trustProxy', async () => {
    const plain = await fastifyServer(false);
    expect((await whoamiAt(plain, { 'x-forwarded-for': '198.51.100.7' })).address).toBe('127.0.0.1');
    const proxied = await fastifyServer('127.0.0.1');
    expect((await whoamiAt(proxied, { 'x-forwarded-for': '198.51.100.7' })).address).toBe('198.51.100.7');
  });
});

describe('fix 11.6: the unknown-address rule', () => {
  it('fix 11.6: limitedAddress passes known addresses and warns once per limit for unknown ones', () => {
    const lines: string[] = [];
    const logger = lineLogger((l) => lines.push(l), 'debug');
    expect(limitedAddress(logger, '203.0.113.9', 'a')).toBe(true);
    expect(limitedAddress(logger, undefined, 'a')).toBe(false);
    expect(limitedAddress(logger, '', 'a')).toBe(false);
    expect(limitedAddress(logger, undefined, 'b')).toBe(false);
    expect(lines).toHaveLength(2);
  });
});
