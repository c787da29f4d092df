import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { Feature } from '../../src/http/types.js';
import { memoryStorage } from '../../src/memory.js';
import { toNodeListener } from '../../src/node.js';
import { createService } from '../../src/service.js';
import { startTestService } from '../helpers/handle.js';
import { TEST_APP, appHeaders } from '../helpers/server.js';

const echoBytes = (ctx: { rawBody: Uint8Array | null }) => ({ body: { bytes: ctx.rawBody?.length ?? 0 } });

const limited = (): Feature => ({
  name: 'limited',
  routes: [
    { method: 'POST', path: '/1/tiny', auth: 'app', body: 'raw', bodyLimit: 10, handler: echoBytes },
    { method: 'POST', path: '/1/roomy', auth: 'app', body: 'json', bodyLimit: 8192, handler: (ctx) => ({ body: { keys: Object.keys(ctx.body ?? {}) } }) },
    { method: 'POST', path: '/1/default', auth: 'app', body: 'raw', handler: echoBytes },
    {
      method: 'POST',
      path: '/1/stream',
      auth: 'app',
      body: 'stream',
      bodyLimit: 100,
      handler: async (ctx) => {
        let bytes = 0;
        for await (const chunk of ctx.bodyStream ?? []) bytes += chunk.length;
        return { body: { bytes, raw: ctx.rawBody === null ? null : 'bytes' } };
      },
    },
  ],
});

describe('per-route body limits', () => {
  const svc = startTestService({ bodyLimit: 1024, features: [limited] });

  it('a route with a smaller limit refuses what the service would accept, naming its own limit', async () => {
    const res = await svc.request('POST', '/1/tiny', { rawBody: 'x'.repeat(11) });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ code: 11002, error: 'request body larger than 10 bytes.' });
    expect((await svc.request('POST', '/1/tiny', { rawBody: 'x'.repeat(10) })).body).toEqual({ bytes: 10 });
  });

  it('a route with a larger limit accepts what the service limit refuses elsewhere', async () => {
    const body = { blob: 'x'.repeat(4000) };
    expect((await svc.request('POST', '/1/roomy', { body })).body).toEqual({ keys: ['blob'] });
    const elsewhere = await svc.request('POST', '/1/default', { body });
    expect(elsewhere.status).toBe(413);
    expect(elsewhere.body.code).toBe(11002);
  });

  it('a declared length over the limit is refused before the body is used', async () => {
    const res = await svc.request('POST', '/1/default', { rawBody: 'x', headers: { 'content-length': '5000' } });
    expect(res.status).toBe(413);
  });

  it('a stream route gets the body as chunks within its limit, and no rawBody', async () => {
    expect((await svc.request('POST', '/1/stream', { rawBody: 'x'.repeat(100) })).body).toEqual({ bytes: 100, raw: null });
    const over = await svc.request('POST', '/1/stream', { rawBody: 'x'.repeat(101) });
    expect(over.status).toBe(413);
    expect(over.body.code).toBe(11002);
  });
});

describe('the deprecated host-level bodyLimit', () => {
  it('stays a ceiling under the service limit and warns once through the logger', async () => {
    const warnings: string[] = [];
    const service = createService({
      storage: memoryStorage(),
      applications: [TEST_APP],
      captcha: false,
      features: [limited],
      logger: { debug() {}, info() {}, warn: (message) => warnings.push(message), error() {} },
    });
    const server = createServer(toNodeListener(service, { bodyLimit: 50 }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const send = (size: number) => fetch(`${url}/1/default`, { method: 'POST', headers: appHeaders(), body: 'x'.repeat(size) });
      expect((await send(50)).status).toBe(200);
      const over = await send(51);
      expect(over.status).toBe(413);
      expect(((await over.json()) as { error: string }).error).toContain('50 bytes');
      expect(warnings).toEqual([expect.stringContaining('deprecated')]);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await service.close();
    }
  });
});
