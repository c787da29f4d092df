import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CloudFunction } from '../../src/functions/index.js';
import { TEST_APP, type TestServer, startTestServer } from '../helpers/server.js';
import { connectTestRedis, deleteKeys, runPrefix } from '../redis/redis-env.js';

const redis = await connectTestRedis('functions-oRedis');
const prefix = runPrefix('fn');

const definitions: Record<string, CloudFunction> = {
  redisTour: async (_request, response, { oRedis }) => {
    await oRedis.set('greeting', 'hi');
    await oRedis.set('short', 'lived', 60);
    await oRedis.hset('h', 'a', '1');
    await oRedis.rpush('l', 'x', 'y');
    await oRedis.lpush('l', 'w');
    await oRedis.sadd('s', 'm1', 'm2', 'm1');
    response.send({
      greeting: await oRedis.get('greeting'),
      missing: await oRedis.get('nope'),
      hash: await oRedis.hgetall('h'),
      field: await oRedis.hget('h', 'a'),
      emptyHash: await oRedis.hgetall('none'),
      list: await oRedis.lrange('l', 0, -1),
      popped: [await oRedis.lpop('l'), await oRedis.rpop('l')],
      members: (await oRedis.smembers('s')).sort(),
      exists: [await oRedis.exists('greeting'), await oRedis.exists('nope')],
      expire: [await oRedis.expire('greeting', 100), await oRedis.expire('nope', 100)],
      deleted: await oRedis.del('greeting'),
    });
  },
  badKey: async (_request, response, { oRedis }) => {
    try {
      await oRedis.get('');
      response.send('no error');
    } catch (error) {
      response.send({ code: (error as { code: number }).code });
    }
  },
};

describe.skipIf(!redis)('oRedis over a real Redis', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ captcha: false, functions: { definitions, redis: { client: redis!, prefix } } });
  });
  afterAll(async () => {
    await server?.close();
    await deleteKeys(redis!, prefix);
    await redis!.quit();
  });

  it('answers as the hosted module documents, every key under the application', async () => {
    const res = await server.request('POST', '/1/functions/redisTour', { body: {} });
    expect(res.body.result).toEqual({
      greeting: 'hi',
      missing: null,
      hash: { a: '1' },
      field: '1',
      emptyHash: null,
      list: ['w', 'x', 'y'],
      popped: ['w', 'y'],
      members: ['m1', 'm2'],
      exists: [true, false],
      expire: [true, false],
      deleted: 1,
    });
    const keys = (await redis!.keys(`${prefix}*`)).sort();
    expect(keys).toEqual([`${prefix}${TEST_APP.applicationId}:h`, `${prefix}${TEST_APP.applicationId}:l`, `${prefix}${TEST_APP.applicationId}:s`, `${prefix}${TEST_APP.applicationId}:short`]);
    expect(await redis!.ttl(`${prefix}${TEST_APP.applicationId}:short`)).toBeGreaterThan(0);
    expect((await server.request('POST', '/1/functions/badKey', { body: {} })).body.result).toEqual({ code: 11005 });
  });
});

describe('oRedis without a Redis', () => {
  it('answers 11039', async () => {
    const server = await startTestServer({ captcha: false, functions: { definitions } });
    try {
      expect((await server.request('POST', '/1/functions/redisTour', { body: {} })).body.code).toBe(11039);
    } finally {
      await server.close();
    }
  });
});
