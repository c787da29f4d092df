/**
 * svcbase in Hono through the fetch handler (the same handler serves Bun, Deno and workers).
 * Run: npx tsx examples/hono/server.ts
 */
import { applyServerLimits, closeGracefully, closeOnSignals, trackRequests } from 'svcbase/node';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { serve } from '@hono/node-server';
import { getConnInfo } from '@hono/node-server/conninfo';
import { type Context, Hono } from 'hono';
import { createService } from 'svcbase';
import { toFetchHandler } from 'svcbase/fetch';
import { memoryStorage } from 'svcbase/memory';

export async function start(port = Number(process.env.PORT ?? 3003)) {
  const service = createService({
    storage: memoryStorage(),
    applications: [{ applicationId: 'dev-app-id', restApiKey: 'dev-rest-key', masterKey: 'dev-master-key' }],
    brands: ['Svc', 'Bmob'],
  });
  // A Request carries no client address: take it from Hono's connection info (per-address limits).
  const handler = toFetchHandler(service, { prefix: '/api', clientAddress: (_request, c: Context | undefined) => (c ? getConnInfo(c).remote.address : undefined) });
  const app = new Hono();
  app.get('/health', (c) => c.json({ ok: true }));
  app.all('/api/*', (c) => handler(c.req.raw, c));
  const server = applyServerLimits(serve({ fetch: app.fetch, port, hostname: '127.0.0.1' }) as Server);
  const inFlight = trackRequests(server);
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    server,
    /** Graceful: stops accepting, lets requests in flight finish, then closes the service. */
    async close() {
      await closeGracefully(server, inFlight, () => service.close());
    },
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { url, close } = await start();
  process.stdout.write(`svcbase on Hono: ${url}/api\n`);
  closeOnSignals(close);
}
