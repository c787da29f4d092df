import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import type { EventBus } from '../../src/events/port.js';
import { postgresEventBus } from '../../src/postgres/postgres-event-bus.js';
import { redisEventBus } from '../../src/redis/redis-event-bus.js';
import { type Service, createService } from '../../src/service.js';
import { postgresStorage } from '../../src/storage/postgres/index.js';
import { handleRequest } from '../helpers/handle.js';
import { TEST_APP } from '../helpers/server.js';
import { until } from '../helpers/store-processes.js';
import { type TestSchema, createTestSchema, postgresAvailable } from '../postgres/pg-test-db.js';
import { REDIS_URL, connectTestRedis } from '../redis/redis-env.js';
import { FAST_SCRYPT } from '../users/users-server.js';

/**
 * Two services in one process on one PostgreSQL schema, each with its own bus connection (Redis
 * pub/sub, or PostgreSQL LISTEN/NOTIFY). Their clock never moves, so no cache ever expires: a change
 * made through one can reach the other only by the bus's invalidation, and must within 1 s.
 */
const WITHIN_MS = 1000;

type BusKind = 'redis' | 'postgres';
const pgUp = await postgresAvailable('cache-invalidation');
const probe = pgUp ? await connectTestRedis('cache-invalidation') : null;
probe?.disconnect();
const kinds: BusKind[] = pgUp ? (probe ? ['redis', 'postgres'] : ['postgres']) : [];

describe.skipIf(kinds.length === 0).each(kinds)('invalidation between instances over the %s bus (issue 40)', (kind) => {
  let schema: TestSchema;
  const closers: Array<() => Promise<unknown> | unknown> = [];
  let a: Service;
  let b: Service;
  const prefix = `svc-inval-${randomBytes(4).toString('hex')}:`;

  const busFor = (): EventBus => {
    if (kind === 'postgres') return postgresEventBus({ sql: schema.client({ max: 2 }), prefix });
    const publisher = new Redis(REDIS_URL);
    const subscriber = new Redis(REDIS_URL);
    closers.push(() => publisher.quit(), () => subscriber.quit());
    return redisEventBus({ publisher, subscriber, prefix });
  };
  const instance = (clock: FakeClock) => {
    const service = createService({
      storage: postgresStorage({ sql: schema.client({ max: 4 }), clock }),
      bus: busFor(),
      clock,
      applications: [TEST_APP],
      users: { scrypt: FAST_SCRYPT },
      captcha: false,
    });
    closers.unshift(() => service.close());
    return service;
  };
  const call = (service: Service, method: string, path: string, body?: unknown, token?: string) =>
    handleRequest(service, method, path, { ...(body === undefined ? {} : { body }), ...(token ? { headers: { 'X-Svc-Session-Token': token } } : {}) });
  const master = (service: Service, method: string, path: string, body?: unknown) =>
    handleRequest(service, method, path, { auth: 'master', ...(body === undefined ? {} : { body }) });

  beforeAll(async () => {
    schema = await createTestSchema('svc_inval');
    const clock = new FakeClock();
    a = instance(clock);
    b = instance(clock);
    // Both listen before the first change (the bus delivers what is published after a subscription).
    await until('both instances subscribed', async () => (await master(a, 'GET', '/1/schemas')).status === 200, 5000);
  });
  afterAll(async () => {
    for (const close of closers) await close();
    await schema?.drop();
  });

  const signUp = async (service: Service, username: string) =>
    (await call(service, 'POST', '/1/users', { username, password: 'pw-123456', email: `${username}@example.test` })).body as { objectId: string; sessionToken: string };

  it('roles: a member removed through A can no longer write through B', async () => {
    const ann = await signUp(a, `ann${kind}`);
    const role = await master(a, 'POST', '/1/roles', { name: `writers${kind}`, users: { __op: 'AddRelation', objects: [{ __type: 'Pointer', className: '_User', objectId: ann.objectId }] } });
    expect(role.status).toBe(201);
    expect((await master(a, 'POST', '/1/schemas/Memo', { classLevelPermissions: { find: { '*': true }, get: { '*': true }, count: { '*': true }, create: { [`role:writers${kind}`]: true }, update: {}, delete: {}, addField: { '*': true } } })).status).toBe(201);
    // B resolves (and caches) ann's roles and the table's permissions.
    await until('B lets the role member create', async () => (await call(b, 'POST', '/1/classes/Memo', { n: 1 }, ann.sessionToken)).status === 201, 5000);
    await master(a, 'PUT', `/1/roles/${String(role.body.objectId)}`, { users: { __op: 'RemoveRelation', objects: [{ __type: 'Pointer', className: '_User', objectId: ann.objectId }] } });
    const ms = await until('B refuses the removed member', async () => (await call(b, 'POST', '/1/classes/Memo', { n: 2 }, ann.sessionToken)).body.code === 11171, WITHIN_MS * 3);
    expect(ms).toBeLessThan(WITHIN_MS);
  });

  it('class permissions: a table closed through A is closed on B', async () => {
    expect((await call(b, 'POST', '/1/classes/Open', { n: 1 })).status).toBe(201);
    expect((await call(b, 'GET', '/1/classes/Open')).status).toBe(200);
    await master(a, 'PUT', '/1/schemas/Open', { classLevelPermissions: { find: {}, get: {}, count: {}, create: {}, update: {}, delete: {}, addField: {} } });
    const ms = await until('B refuses the closed table', async () => (await call(b, 'POST', '/1/classes/Open', { n: 2 })).body.code === 11171, WITHIN_MS * 3);
    expect(ms).toBeLessThan(WITHIN_MS);
  });

  it('schema: a field added and then deleted through A shows on B', async () => {
    expect((await call(b, 'POST', '/1/classes/Shape', { n: 1 })).status).toBe(201);
    const fieldsOnB = async () => Object.keys(((await master(b, 'GET', '/1/schemas/Shape')).body as { fields: object }).fields);
    expect(await fieldsOnB()).not.toContain('colour');
    expect((await master(a, 'PUT', '/1/schemas/Shape', { fields: { colour: { type: 'String' } } })).status).toBe(200);
    const added = await until('B lists the added field', async () => (await fieldsOnB()).includes('colour'), WITHIN_MS * 3);
    expect(added).toBeLessThan(WITHIN_MS);
    expect((await master(a, 'PUT', '/1/schemas/Shape', { fields: { colour: { __op: 'Delete' } } })).status).toBe(200);
    const dropped = await until('B no longer lists the deleted field', async () => !(await fieldsOnB()).includes('colour'), WITHIN_MS * 3);
    expect(dropped).toBeLessThan(WITHIN_MS);
  });

  it('sessions: a session ended through A is refused by B at once (sessions are never cached)', async () => {
    const bob = await signUp(a, `bob${kind}`);
    expect((await call(b, 'GET', '/1/users/me', undefined, bob.sessionToken)).status).toBe(200);
    expect((await call(a, 'POST', '/1/logout', {}, bob.sessionToken)).status).toBe(200);
    const after = await call(b, 'GET', '/1/users/me', undefined, bob.sessionToken);
    expect(after.status).not.toBe(200);
  });
});
