/**
 * Realtime subscriptions on node:http (docs/realtime.md): `npx tsx examples/realtime/server.ts`, then
 *
 *   npx wscat -c ws://127.0.0.1:3001/1/realtime -H 'X-Svc-Application-Id: rt-app' -H 'X-Svc-REST-API-Key: rt-rest'
 *   > {"op":"subscribe","id":1,"action":"updateTable","tableName":"GameScore"}
 *
 * and create a record in another terminal:
 *
 *   curl -X POST http://127.0.0.1:3001/1/classes/GameScore -H 'X-Svc-Application-Id: rt-app' \
 *     -H 'X-Svc-REST-API-Key: rt-rest' -H 'Content-Type: application/json' -d '{"score":1}'
 *
 * The official SDK's `Bmob.Socket('rt-app')` connects to the same server at `/socket.io/` once its
 * host points here. Express, Fastify and Hono wire `upgrade` the same way on their node server
 * (`app.listen()`'s return value, `fastify.server`, `serve()`'s return value).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { createService } from 'svcbase';
import { memoryStorage } from 'svcbase/memory';
import { applyServerLimits, closeGracefully, closeOnSignals, toNodeListener, trackRequests } from 'svcbase/node';

/** Starts the server; resolves with its URL and a close function. Port 0 picks a free port (tests). */
export async function start(port = Number(process.env.PORT ?? 3001)) {
  const service = createService({
    storage: memoryStorage(),
    applications: [{ applicationId: 'rt-app', restApiKey: 'rt-rest', masterKey: 'rt-master', settings: { features: { realtime: true } } }],
    captcha: false,
    realtime: { maxConnectionsPerApp: 10_000 },
  });
  const server = applyServerLimits(createServer(toNodeListener(service)));
  const inFlight = trackRequests(server);
  server.on('upgrade', (req, socket, head) => void service.handleUpgrade(req, socket, head));
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** Graceful: stops accepting, lets HTTP requests in flight finish, then closes the subscribers' sockets (1001) and the service. */
    async close() {
      await closeGracefully(server, inFlight, () => service.close());
    },
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { url, close } = await start();
  closeOnSignals(close);
  process.stdout.write(`svcbase realtime example on ${url} (ws${url.slice(4)}/1/realtime, ${url}/socket.io/)\n`);
}
