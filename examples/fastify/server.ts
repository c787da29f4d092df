/** svcbase as a Fastify plugin under /api. Run: npx tsx examples/fastify/server.ts */
import { closeOnSignals } from 'svcbase/node';
import { pathToFileURL } from 'node:url';
import Fastify from 'fastify';
import { createService } from 'svcbase';
import { applyServerLimits, svcbaseFastify } from 'svcbase/fastify';
import { memoryStorage } from 'svcbase/memory';

export async function start(port = Number(process.env.PORT ?? 3002)) {
  const service = createService({
    storage: memoryStorage(),
    applications: [{ applicationId: 'dev-app-id', restApiKey: 'dev-rest-key', masterKey: 'dev-master-key' }],
    brands: ['Svc', 'Bmob'],
  });
  // request.ip is the client address svcbase counts; behind a proxy set Fastify's own `trustProxy`.
  const fastify = Fastify();
  // Idle, header, request and keep-alive bounds and the connection cap on Fastify's node:http server.
  applyServerLimits(fastify.server);
  fastify.get('/health', async () => ({ ok: true }));
  await fastify.register(svcbaseFastify, { service, prefix: '/api' });
  const url = await fastify.listen({ port, host: '127.0.0.1' });
  return {
    url,
    /** Graceful: Fastify stops accepting and waits for requests in flight; then the service closes. */
    async close() {
      await fastify.close();
      await service.close();
    },
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { url, close } = await start();
  process.stdout.write(`svcbase on Fastify: ${url}/api\n`);
  closeOnSignals(close);
}
