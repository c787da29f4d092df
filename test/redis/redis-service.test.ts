import { Redis } from 'ioredis';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import { redisCounterStore, redisKvStore } from '../../src/redis.js';
import { memorySmsTransport } from '../../src/sms/memory-transport.js';
import { TEST_APP, type TestServer, startTestServer } from '../helpers/server.js';
import { PHONE } from '../sms/harness.js';
import { connectTestRedis, deleteKeys, runPrefix } from './redis-env.js';

const redis = await connectTestRedis('redis-service');
const prefix = runPrefix('service');
let runs = 0;
const servers: TestServer[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
afterAll(async () => {
  if (!redis) return;
  await deleteKeys(redis, prefix);
  await redis.quit();
});

/** Two instances of one service sharing only Redis (each has its own storage, clock and transport). */
async function twoInstances() {
  const shared = `${prefix}${runs++}:`;
  const transport = memorySmsTransport();
  const start = () =>
    startTestServer({
      clock: new FakeClock(),
      kv: redisKvStore({ client: redis!, prefix: `${shared}kv:` }),
      counters: redisCounterStore({ client: redis!, prefix: `${shared}rate:` }),
      applications: [{ ...TEST_APP, settings: { sms: { quota: 'unlimited' } } as never }],
      sms: { transport },
    });
  const pair = [await start(), await start()] as const;
  servers.push(...pair);
  return { transport, a: pair[0], b: pair[1] };
}

// Skipped (loudly, see connectTestRedis) only when Redis is unreachable outside CI; CI fails instead.
describe.skipIf(!redis)('services sharing Redis on Redis', () => suites(redis as Redis));

function suites(redis: Redis): void {
  describe('two service instances sharing Redis, over real HTTP', () => {
    it('a code sent by one instance is rate-limited and verified on the other', async () => {
      const { transport, a, b } = await twoInstances();
      const sent = await a.request('POST', '/1/requestSmsCode', { body: { mobilePhoneNumber: PHONE } });
      expect(sent.status).toBe(200);
      const limited = await b.request('POST', '/1/requestSmsCode', { body: { mobilePhoneNumber: PHONE } });
      expect([limited.status, limited.body.code]).toEqual([429, 10010]);
      const code = transport.lastCode(PHONE)!;
      const verified = await b.request('POST', `/1/verifySmsCode/${code}`, { body: { mobilePhoneNumber: PHONE } });
      expect([verified.status, verified.body]).toEqual([200, { msg: 'ok' }]);
      const status = await a.request('GET', `/1/querySms/${sent.body.smsId}`);
      expect([status.status, status.body]).toEqual([200, { sms_state: 'SENDING', verify_state: true }]);
    });

    it('200 concurrent requests for one number split over both instances: exactly one 200', async () => {
      const { transport, a, b } = await twoInstances();
      const replies = await Promise.all(
        Array.from({ length: 200 }, (_, i) => (i % 2 ? a : b).request('POST', '/1/requestSmsCode', { body: { mobilePhoneNumber: PHONE } })),
      );
      expect(replies.filter((r) => r.status === 200)).toHaveLength(1);
      expect(replies.filter((r) => r.status === 429 && r.body.code === 10010)).toHaveLength(199);
      expect(transport.messages).toHaveLength(1);
    }, 60_000);

    it('with Redis unreachable requestSmsCode answers 11230 (424, Retry-After) and sends nothing', async () => {
      const down = new Redis({ port: 1, lazyConnect: true, enableOfflineQueue: false, retryStrategy: () => null });
      down.on('error', () => {});
      const transport = memorySmsTransport();
      const s = await startTestServer({
        kv: redisKvStore({ client: down }),
        counters: redisCounterStore({ client: down }),
        applications: [{ ...TEST_APP, settings: { sms: { quota: 'unlimited' } } as never }],
        sms: { transport },
      });
      servers.push(s);
      const reply = await s.request('POST', '/1/requestSmsCode', { body: { mobilePhoneNumber: PHONE } });
      expect([reply.status, reply.body.code]).toEqual([424, 11230]);
      expect(transport.messages).toHaveLength(0);
      down.disconnect();
    });
  });
}
