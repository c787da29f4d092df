import { describe, expect, it } from 'vitest';
import { start as startExpress } from '../../examples/express/server.js';
import { start as startFastify } from '../../examples/fastify/server.js';
import { start as startHono } from '../../examples/hono/server.js';
import { requestSignature } from '../../src/http/signature.js';

const keys = { 'X-Bmob-Application-Id': 'dev-app-id', 'X-Bmob-REST-API-Key': 'dev-rest-key' };

describe.each([
  ['express', startExpress],
  ['fastify', startFastify],
  ['hono', startHono],
])('mounted in %s under /api', (_name, start) => {
  it('serves the service under the prefix and leaves the host routes alone', async () => {
    const { url, close } = await start(0);
    try {
      const health = await fetch(`${url}/health`);
      expect(await health.json()).toEqual({ ok: true });

      const time = await fetch(`${url}/api/1/timestamp`, { headers: keys });
      expect(time.status).toBe(200);
      expect(await time.json()).toHaveProperty('timestamp');

      const denied = await fetch(`${url}/api/1/timestamp`);
      expect(denied.status).toBe(401);

      const unknown = await fetch(`${url}/api/1/nope`, { headers: keys });
      expect(unknown.status).toBe(404);
      expect(((await unknown.json()) as any).code).toBe(11001);

      const created = await fetch(`${url}/api/1/classes/Mounted/`, {
        method: 'POST',
        headers: { ...keys, 'content-type': 'application/json' },
        body: JSON.stringify({ score: 7 }),
      });
      expect(created.status).toBe(201);
      const { objectId } = (await created.json()) as { objectId: string };
      const read = await fetch(`${url}/api/1/classes/Mounted/${objectId}`, { headers: keys });
      expect(((await read.json()) as any).score).toBe(7);

      const big = await fetch(`${url}/api/1/classes/Mounted`, {
        method: 'POST',
        headers: { ...keys, 'content-type': 'application/json' },
        body: JSON.stringify({ blob: 'x'.repeat(2 * 1024 * 1024) }),
      });
      expect(big.status).toBe(413);
      expect(((await big.json()) as any).code).toBe(11002);
    } finally {
      await close();
    }
  });

  it('checks signatures against the path without the mount prefix', async () => {
    const { url, close } = await start(0);
    try {
      // The example app has no secret key, so a signed request is refused; the route itself exists.
      const timestamp = String(Math.round(Date.now() / 1000));
      const sign = requestSignature({ path: '/1/timestamp', timestamp, securityCode: 'x', nonce: 'abcdefghijklmnop', body: '', sdkVersion: '10' });
      const res = await fetch(`${url}/api/1/timestamp`, {
        headers: { 'X-Bmob-Secret-Key': 'none', 'X-Bmob-Safe-Timestamp': timestamp, 'X-Bmob-Noncestr-Key': 'abcdefghijklmnop', 'X-Bmob-SDK-Version': '10', 'X-Bmob-Safe-Sign': sign },
      });
      expect(res.status).toBe(401);
    } finally {
      await close();
    }
  });
});

describe('examples/node-http: plain node:http on SQLite', () => {
  it('stores a record, runs its host function and shuts down', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { start } = await import('../../examples/node-http/server.js');
    const dir = mkdtempSync(join(tmpdir(), 'svcbase-node-http-'));
    const { url, close } = await start(0, join(dir, 'example.db'));
    try {
      const headers = { 'X-Svc-Application-Id': 'example-app', 'X-Svc-REST-API-Key': 'example-rest-key', 'content-type': 'application/json' };
      const created = await fetch(`${url}/1/classes/Note`, { method: 'POST', headers, body: '{"text":"hi"}' });
      expect(created.status).toBe(201);
      const hello = await fetch(`${url}/1/functions/hello`, { method: 'POST', headers, body: '{"name":"node"}' });
      expect(await hello.json()).toEqual({ result: 'hello node' });
    } finally {
      await close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
