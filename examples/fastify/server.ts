/** svcbase as a Fastify plugin under /api. Run: npx tsx examples/fastify/server.ts */
import { SERVER_LIMITS, closeOnSignals } from 'svcbase/node';
import { pathToFileURL } from 'node:url';
import Fastify from 'fastify';
import { createService } from 'svcbase';
import { svcbaseFastify } from 'svcbase/fastify';
import { memoryStorage } from 'svcbase/memory';

export async function start(port = Number(process.env.PORT ?? 3002)) {
  const service = createService({
    storage: memoryStorage(),
    applications: [{ applicationId: 'dev-app-id', restApiKey: 'dev-rest-key', masterKey: 'dev-master-key' }],
    brands: ['Svc', 'Bmob'],
  });
  // request.ip is the client address svcbase counts; behind a proxy set Fastify's own `trustProxy`.
  const fastify = Fastify({
    connectionTimeout: SERVER_LIMITS.idleSocketMs,
    requestTimeout: SERVER_LIMITS.requestTimeoutMs,
    keepAliveTimeout: SERVER_LIMITS.keepAliveTimeoutMs,
  });
  fastify.server.headersTimeout = SERVER_LIMITS.headersTimeoutMs;
  fastify.server.maxConnections = SERVER_LIMITS.maxConnections;
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
