import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import type { BusState } from '../../src/events/port.js';
import { redisOptions } from '../../src/cli/stores.js';
import { redisEventBus } from '../../src/redis/redis-event-bus.js';
import { type OwnRedis, ownRedis, until } from '../helpers/store-processes.js';

describe('the Redis bus across a Redis restart (issue 40)', async () => {
  const redis: OwnRedis | null = await ownRedis().catch(() => null);
  afterAll(() => redis?.kill());

  it.skipIf(!redis)('reports down when Redis goes, up once its channels are subscribed again, and delivers again', async () => {
    const publisher = new Redis(redis!.url, redisOptions('commands'));
    const subscriber = new Redis(redis!.url, redisOptions('subscriber'));
    for (const client of [publisher, subscriber]) client.on('error', () => {});
    const bus = redisEventBus({ publisher, subscriber, prefix: 'interruption:' });
    const states: BusState[] = [];
    bus.onInterruption!((state) => states.push(state));
    const received: string[] = [];
    await bus.subscribe('ch', (message) => received.push(message));
    await until('Redis ready', () => publisher.status === 'ready');
    await bus.publish('ch', 'before');
    await until('before delivered', () => received.includes('before'), 2000);

    await redis!.kill();
    await until('down reported', () => states.includes('down'), 2000);
    await expect(bus.publish('ch', 'during')).rejects.toThrow();
    await redis!.start();
    await until('up reported', () => states.at(-1) === 'up', 5000);
    await until('Redis ready again', () => publisher.status === 'ready', 5000);
    await bus.publish('ch', 'after');
    await until('after delivered', () => received.includes('after'), 2000);
    expect(states).toEqual(['down', 'up']);
    expect(received).toEqual(['before', 'after']);
    await bus.close?.();
    publisher.disconnect();
    subscriber.disconnect();
  });
});
