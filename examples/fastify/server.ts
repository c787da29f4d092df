/** svcbase as a Fastify plugin under /api. Run: npx tsx examples/fastify/server.ts */
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
  const fastify = Fastify();
  fastify.get('/health', async () => ({ ok: true }));
  await fastify.register(svcbaseFastify, { service, prefix: '/api' });
  const url = await fastify.listen({ port, host: '127.0.0.1' });
  return {
    url,
    async close() {
      await fastify.close();
      await service.close();
    },
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { url } = await start();
  process.stdout.write(`svcbase on Fastify: ${url}/api\n`);
}
