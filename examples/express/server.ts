/**
 * svcbase under Express, mounted at /api. Run: npx tsx examples/express/server.ts
 * Mount svcbase before any body parser: signed requests are checked against the raw body.
 */
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import express from 'express';
import { createService } from 'svcbase';
import { memoryStorage } from 'svcbase/memory';
import { applyServerLimits, closeGracefully, closeOnSignals, toNodeListener, trackRequests } from 'svcbase/node';

export async function start(port = Number(process.env.PORT ?? 3001)) {
  const service = createService({
    storage: memoryStorage(),
    applications: [{ applicationId: 'dev-app-id', restApiKey: 'dev-rest-key', masterKey: 'dev-master-key' }],
    brands: ['Svc', 'Bmob'],
  });
  const app = express();
  app.get('/health', (_req, res) => {
    res.json({ ok: true });
  });
  // Behind a reverse proxy, name it so X-Forwarded-For counts: toNodeListener(service, { trustProxy: ['10.0.0.5'] }).
  app.use('/api', toNodeListener(service));
  const server = applyServerLimits(app.listen(port, '127.0.0.1'));
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
  process.stdout.write(`svcbase on Express: ${url}/api\n`);
  closeOnSignals(close);
}
