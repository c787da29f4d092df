import { afterEach, describe, expect, it } from 'vitest';
import type { Application } from '../../src/app/application.js';
import { type Caller, internalCaller, sessionCaller } from '../../src/app/caller.js';
import { isSvcError } from '../../src/core/errors.js';
import type { JsonObject } from '../../src/core/wire-values.js';
import { memoryStorage } from '../../src/memory.js';
import { parseBatch, runBatch } from '../../src/records/batch.js';
import type { RecordWrites } from '../../src/records/records-service.js';
import { type Service, createService } from '../../src/service.js';
import type { StorageAdapter } from '../../src/storage/port.js';
import { TEST_APP } from '../helpers/server.js';
import { FAST_SCRYPT } from '../users/users-server.js';

/** Services called directly, as a cloud function or host would: a Caller plus typed input, no request. */
describe('records and users services without HTTP', () => {
  let service: Service;
  afterEach(async () => service?.close());

  function start(): { app: Application; records: NonNullable<Service['registry']['records']>['service']; users: NonNullable<Service['registry']['users']>['service'] } {
    service = createService({ storage: memoryStorage(), applications: [TEST_APP], captcha: false, users: { scrypt: FAST_SCRYPT } });
    const app = service.applications.get(TEST_APP.applicationId)!;
    return { app, records: service.registry.records!.service, users: service.registry.users!.service };
  }
  const userCaller = (app: Application, token: string | null): Caller =>
    sessionCaller(app, { credential: 'rest', isMaster: false, sessionToken: token }, () => service.registry.sessions);
  const code = async (work: Promise<unknown>) => {
    const error = await work.then(() => null, (e: unknown) => e);
    return isSvcError(error) ? error.code : error;
  };

  it('an internal caller creates, reads, lists, updates and deletes records', async () => {
    const { app, records } = start();
    const caller = internalCaller(app);
    const created = await records.create(caller, 'Post', { title: 'hi', score: 3 });
    expect(created.kind).toBe('created');
    const objectId = created.kind === 'created' ? created.objectId : '';
    expect(created.reply).toEqual({ objectId, createdAt: expect.any(String) });
    expect(await records.get(caller, 'Post', objectId, { keys: ['title'] })).toEqual({
      objectId,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      title: 'hi',
    });
    expect(await records.update(caller, 'Post', objectId, { score: { __op: 'Increment', amount: 2 } })).toEqual({ updatedAt: expect.any(String) });
    const listed = await records.list(caller, 'Post', new URLSearchParams({ where: JSON.stringify({ score: 5 }), count: '1' }));
    expect(listed).toMatchObject({ count: 1, results: [{ objectId, title: 'hi', score: 5 }] });
    await records.delete(caller, 'Post', objectId);
    expect(await code(records.get(caller, 'Post', objectId))).toBe(101);
    expect(await code(records.delete(caller, 'Post', objectId))).toBe(101);
  });

  it('bad input gets a coded error and writes nothing', async () => {
    const { app, records } = start();
    const caller = internalCaller(app);
    expect(await code(records.create(caller, 'bad name', { a: 1 }))).toBe(103);
    expect(typeof (await code(records.create(caller, 'Post', JSON.parse('{"__proto__": {"polluted": 1}, "a b": 2}') as JsonObject)))).toBe('number');
    expect(typeof (await code(records.create(caller, 'Post', { score: { __op: 'Increment', amount: 'x' } })))).toBe('number');
    expect(await code(records.list(caller, 'Post', new URLSearchParams({ where: '{"a":' })))).toBe(107);
    expect(await records.list(caller, 'Post', new URLSearchParams())).toEqual({ results: [] });
  });

  it('class policies see the caller: a system table needs the master flag, not a request', async () => {
    const { app, records } = start();
    expect(await code(records.create(internalCaller(app, { master: false }), '_Config', { a: 1 }))).toBe(11006);
    expect((await records.create(internalCaller(app), '_Config', { a: 1 })).kind).toBe('created');
    expect(await code(records.list(userCaller(app, null), '_Session', new URLSearchParams()))).toBe(11006);
  });

  it('the users service signs up, logs in and answers me / update / delete with a user caller', async () => {
    const { app, users, records } = start();
    const anonymous = userCaller(app, null);
    const signed = await users.signUp(anonymous, { username: 'ann', password: 'pw-ann-1', email: 'ann@example.com' });
    expect(signed.kind).toBe('created');
    const token = String(signed.reply.sessionToken);
    const objectId = String(signed.reply.objectId);
    const ann = userCaller(app, token);
    expect(await users.me(ann)).toMatchObject({ objectId, username: 'ann', sessionToken: token });
    expect((await users.me(ann)).password).toBeUndefined();
    expect(await code(users.me(anonymous))).toBe(211);
    expect(await users.checkSession(ann, objectId)).toBe(true);
    // Another user's caller may not change ann (206); ann may.
    const bob = await users.signUp(anonymous, { username: 'bob', password: 'pw-bob-1' });
    const bobCaller = userCaller(app, String(bob.reply.sessionToken));
    expect(await code(users.update(bobCaller, objectId, { nick: 'x' }))).toBe(206);
    expect(await users.update(ann, objectId, { nick: 'annie' })).toEqual({ updatedAt: expect.any(String) });
    const login = await users.login(anonymous, { username: 'ann', password: 'pw-ann-1' });
    expect(login).toMatchObject({ objectId, nick: 'annie', sessionToken: expect.any(String) });
    expect(await code(users.login(anonymous, { username: 'ann', password: 'wrong' }))).toBe(101);
    // The list over _User never shows passwords, and refuses queries naming it (102).
    const list = await users.list(anonymous, new URLSearchParams({ order: 'username' }));
    expect((list.results as JsonObject[]).map((u) => [u.username, u.password])).toEqual([['ann', undefined], ['bob', undefined]]);
    expect(await code(users.list(anonymous, new URLSearchParams({ where: '{"password":"x"}' })))).toBe(102);
    // The same user through the records service (its _User policy) and deleted by the user itself.
    expect(await records.get(anonymous, '_User', objectId)).not.toHaveProperty('password');
    await users.delete(ann, objectId);
    expect(await code(users.me(ann))).toBe(211);
  });

  it('_User writes through the records service are the users service\'s: a password change revokes the other sessions, a delete all', async () => {
    const { app, users, records } = start();
    const anonymous = userCaller(app, null);
    const signed = await users.signUp(anonymous, { username: 'cy', password: 'pw-cy-1' });
    const objectId = String(signed.reply.objectId);
    const first = userCaller(app, String(signed.reply.sessionToken));
    const second = userCaller(app, String((await users.login(anonymous, { username: 'cy', password: 'pw-cy-1' })).sessionToken));
    expect(await code(records.update(anonymous, '_User', objectId, { nick: 'x' }))).toBe(206);
    expect(await code(records.update(anonymous, '_User', 'not an id!', { nick: 'x' }))).toBe(101);
    expect(await records.update(first, '_User', objectId, { password: 'pw-cy-2' })).toEqual({ updatedAt: expect.any(String) });
    expect(await users.me(first)).toMatchObject({ objectId });
    expect(await code(users.me(userCaller(app, second.sessionToken)))).toBe(211);
    expect(await users.login(anonymous, { username: 'cy', password: 'pw-cy-2' })).toMatchObject({ objectId });
    await records.delete(first, '_User', objectId);
    expect(await code(users.me(userCaller(app, first.sessionToken)))).toBe(211);
    // The batch path refuses _User whatever the caller (11071), even called directly.
    expect(await code(records.writesOn(memoryStorage()).create(internalCaller(app), '_User', { username: 'z' }))).toBe(11071);
  });
});

describe('batch dispatches typed items to the records service', () => {
  it('runs each item as a service call with its own caller (no router, no request context)', async () => {
    const app = internalCaller(createService({ storage: memoryStorage(), applications: [TEST_APP] }).applications.get(TEST_APP.applicationId)!).app;
    const calls: Array<{ op: string; args: unknown[]; token: string | null; isMaster: boolean }> = [];
    const writes: RecordWrites = {
      create: async (caller, className, fields) => (calls.push({ op: 'create', args: [className, fields], token: caller.sessionToken, isMaster: caller.isMaster }), { objectId: 'o1', createdAt: 't1' }),
      update: async (caller, className, objectId, fields) => (calls.push({ op: 'update', args: [className, objectId, fields], token: caller.sessionToken, isMaster: caller.isMaster }), { updatedAt: 't2' }),
      delete: async (caller, className, objectId) => void calls.push({ op: 'delete', args: [className, objectId], token: caller.sessionToken, isMaster: caller.isMaster }),
    };
    const storages: StorageAdapter[] = [];
    const storage = memoryStorage();
    const records = { writesOn: (s: StorageAdapter) => (storages.push(s), writes) };
    const caller = sessionCaller(app, { credential: 'rest', isMaster: false, sessionToken: 'outer' }, () => undefined);
    const batch = parseBatch(
      {
        requests: [
          { method: 'post', path: '/1/classes/Post', body: { a: 1 } },
          { method: 'PUT', path: '/1/classes/Post/o%31', body: { b: 2 }, token: 'inner' },
          { method: 'DELETE', path: '/1/classes/Post/o1' },
          { method: 'POST', path: '/1/classes/Post/o1' },
          { method: 'GET', path: '/1/classes/Post' },
        ],
      },
      50,
    );
    const outcomes = await runBatch({ records, storage, sessions: () => undefined }, caller, batch);
    expect(outcomes).toEqual([
      { success: { createdAt: 't1', objectId: 'o1' } },
      { success: { updatedAt: 't2' } },
      { success: { msg: 'ok' } },
      { error: { code: 113, error: expect.stringContaining('no batchable route') } },
      { error: { code: 113, error: expect.stringContaining('method must be') } },
    ]);
    expect(calls).toEqual([
      { op: 'create', args: ['Post', { a: 1 }], token: 'outer', isMaster: false },
      { op: 'update', args: ['Post', 'o1', { b: 2 }], token: 'inner', isMaster: false },
      { op: 'delete', args: ['Post', 'o1'], token: 'outer', isMaster: false },
    ]);
    expect(storages).toEqual([storage]);
  });

  it('transaction mode runs the items on the transaction storage and a malformed item fails it whole (11070)', async () => {
    const app = createService({ storage: memoryStorage(), applications: [TEST_APP] }).applications.get(TEST_APP.applicationId)!;
    const storage = memoryStorage();
    const used: StorageAdapter[] = [];
    const writes: RecordWrites = {
      create: async () => ({ objectId: 'x', createdAt: 't' }),
      update: async () => ({ updatedAt: 't' }),
      delete: async () => undefined,
    };
    const records = { writesOn: (s: StorageAdapter) => (used.push(s), writes) };
    const caller = internalCaller(app);
    const ok = parseBatch({ transaction: true, requests: [{ method: 'POST', path: '/1/classes/T', body: {} }] }, 50);
    expect(await runBatch({ records, storage, sessions: () => undefined }, caller, ok)).toEqual([{ success: { createdAt: 't', objectId: 'x' } }]);
    expect(used).toHaveLength(1);
    expect(used[0]).not.toBe(storage);
    const bad = parseBatch({ transaction: true, requests: [{ method: 'POST', path: '/1/classes/T', body: {} }, { method: 'PUT', path: '/1/classes/T' }] }, 50);
    const error = await runBatch({ records, storage, sessions: () => undefined }, caller, bad).catch((e: unknown) => e);
    expect(isSvcError(error) && error.code).toBe(11070);
  });
});
