import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { memoryStorage } from '../../src/memory.js';
import { sqliteStorage } from '../../src/storage/sqlite/index.js';
import type { StorageAdapter } from '../../src/storage/port.js';
import type { WriteEvent } from '../../src/events/write-event.js';
import { type TestService, startTestService } from '../helpers/handle.js';
import { FAST_SCRYPT } from '../users/users-server.js';

const ADAPTERS: Array<[string, () => StorageAdapter]> = [
  ['memory', () => memoryStorage()],
  ['sqlite', () => sqliteStorage({ database: new Database(':memory:') })],
  ['memory without updateReturnsBefore (the core emulates it)', withoutNativeBeforeImage],
];

/** An adapter lacking the before-image capability, so the observed storage's emulation runs. */
function withoutNativeBeforeImage(): StorageAdapter {
  const { updateReturningBefore: _native, ...rest } = memoryStorage();
  return { ...rest, capabilities: { transactions: true } };
}

/** An event reduced to what the assertions compare: op, table, id and the named columns of before/after. */
function summary(event: WriteEvent, columns: string[] = []) {
  const pick = (record: WriteEvent['before']) =>
    record === undefined ? undefined : Object.fromEntries(columns.map((c) => [c, record[c] ?? null]));
  return { op: event.op, app: event.app, className: event.className, objectId: event.objectId, before: pick(event.before), after: pick(event.after) };
}

describe.each(ADAPTERS)('write pipeline events (%s)', (_name, makeStorage) => {
  let svc: TestService;
  let events: WriteEvent[];
  const take = () => events.splice(0, events.length);

  beforeEach(() => {
    events = [];
    svc = startTestService({ storage: makeStorage(), captcha: false, users: { scrypt: FAST_SCRYPT }, observers: [(e) => void events.push(e)] });
  });
  afterEach(() => svc.close());

  const create = async (className: string, body: Record<string, unknown>): Promise<string> => {
    const res = await svc.request('POST', `/1/classes/${className}`, { body });
    expect(res.status).toBe(201);
    return res.body.objectId as string;
  };

  it('REST create, update (field op) and delete emit one event each with before/after', async () => {
    const id = await create('GameScore', { score: 1, name: 'a' });
    const [created, ...moreCreated] = take();
    expect(moreCreated).toEqual([]);
    expect(summary(created!, ['score', 'name'])).toEqual({ op: 'create', app: 'test-app', className: 'GameScore', objectId: id, before: undefined, after: { score: 1, name: 'a' } });
    expect(created!.after?.createdAt).toBeDefined();

    expect((await svc.request('PUT', `/1/classes/GameScore/${id}`, { body: { score: { __op: 'Increment', amount: 2 }, name: { __op: 'Delete' } } })).status).toBe(200);
    expect(take().map((e) => summary(e, ['score', 'name']))).toEqual([
      { op: 'update', app: 'test-app', className: 'GameScore', objectId: id, before: { score: 1, name: 'a' }, after: { score: 3, name: null } },
    ]);

    expect((await svc.request('DELETE', `/1/classes/GameScore/${id}`)).status).toBe(200);
    expect(take().map((e) => summary(e, ['score']))).toEqual([{ op: 'delete', app: 'test-app', className: 'GameScore', objectId: id, before: { score: 3 }, after: undefined }]);
  });

  it('a failed write (missing record, bad input) emits nothing', async () => {
    expect((await svc.request('PUT', '/1/classes/GameScore/missing000', { body: { score: 1 } })).status).toBe(404);
    expect((await svc.request('DELETE', '/1/classes/GameScore/missing000')).status).toBe(404);
    expect((await svc.request('POST', '/1/classes/GameScore', { body: { score: { __op: 'Nope' } } })).status).toBe(400);
    expect(events).toEqual([]);
  });

  it('relation ops: a create with members and an AddRelation/RemoveRelation update are one event each', async () => {
    const player = { __type: 'Pointer', className: 'Player', objectId: 'p1' };
    const id = await create('Team', { name: 't', members: { __op: 'AddRelation', objects: [player] } });
    expect(take().map((e) => [e.op, e.className, e.objectId, e.before, e.after?.name])).toEqual([['create', 'Team', id, undefined, 't']]);
    await svc.request('PUT', `/1/classes/Team/${id}`, { body: { members: { __op: 'RemoveRelation', objects: [player] } } });
    const updated = take();
    expect(updated.map((e) => [e.op, e.className, e.objectId])).toEqual([['update', 'Team', id]]);
    expect(updated[0]!.before?.name).toBe('t');
    expect(updated[0]!.after?.name).toBe('t');
  });

  it('batch without transaction: one event per item that succeeded', async () => {
    const id = await create('GameScore', { score: 1 });
    take();
    const res = await svc.request('POST', '/1/batch', {
      body: {
        requests: [
          { method: 'POST', path: '/1/classes/GameScore', body: { score: 10 } },
          { method: 'PUT', path: `/1/classes/GameScore/${id}`, body: { score: { __op: 'Increment', amount: 1 } } },
          { method: 'DELETE', path: '/1/classes/GameScore/missing000' },
        ],
      },
    });
    expect(res.status).toBe(200);
    const newId = res.body[0].success.objectId as string;
    expect(take().map((e) => summary(e, ['score']))).toEqual([
      { op: 'create', app: 'test-app', className: 'GameScore', objectId: newId, before: undefined, after: { score: 10 } },
      { op: 'update', app: 'test-app', className: 'GameScore', objectId: id, before: { score: 1 }, after: { score: 2 } },
    ]);
  });

  it('batch with transaction: events only after commit, one per changed record', async () => {
    const id = await create('GameScore', { score: 1 });
    const gone = await create('GameScore', { score: 7 });
    take();
    const res = await svc.request('POST', '/1/batch', {
      body: {
        transaction: true,
        requests: [
          { method: 'PUT', path: `/1/classes/GameScore/${id}`, body: { score: { __op: 'Increment', amount: 5 } } },
          { method: 'PUT', path: `/1/classes/GameScore/${id}`, body: { score: { __op: 'Increment', amount: 5 } } },
          { method: 'DELETE', path: `/1/classes/GameScore/${gone}` },
        ],
      },
    });
    expect(res.status).toBe(200);
    expect(take().map((e) => summary(e, ['score']))).toEqual([
      { op: 'update', app: 'test-app', className: 'GameScore', objectId: id, before: { score: 1 }, after: { score: 11 } },
      { op: 'delete', app: 'test-app', className: 'GameScore', objectId: gone, before: { score: 7 }, after: undefined },
    ]);
  });

  it('batch with transaction rolled back: no event at all', async () => {
    const id = await create('GameScore', { score: 1 });
    take();
    const res = await svc.request('POST', '/1/batch', {
      body: {
        transaction: true,
        requests: [
          { method: 'PUT', path: `/1/classes/GameScore/${id}`, body: { score: { __op: 'Increment', amount: 5 } } },
          { method: 'POST', path: '/1/classes/GameScore', body: { score: 2 } },
          { method: 'DELETE', path: '/1/classes/GameScore/missing000' },
        ],
      },
    });
    expect(res.body.code).toBe(11070);
    expect(events).toEqual([]);
    expect((await svc.request('GET', `/1/classes/GameScore/${id}`)).body.score).toBe(1);
  });

  it('users: sign-up, login, update, logout and delete emit one event per changed _User/_Session record', async () => {
    const signUp = await svc.request('POST', '/1/users', { body: { username: 'ann', password: 'secret1', nickname: 'a' } });
    expect(signUp.status).toBe(201);
    const userId = signUp.body.objectId as string;
    const token = signUp.body.sessionToken as string;
    const signUpEvents = take();
    expect(signUpEvents.map((e) => [e.op, e.className])).toEqual([['create', '_User'], ['create', '_Session']]);
    expect(signUpEvents[0]!.objectId).toBe(userId);
    expect(signUpEvents[0]!.after?.username).toBe('ann');

    const login = await svc.request('POST', '/1/login', { body: { username: 'ann', password: 'secret1' } });
    expect(login.status).toBe(200);
    expect(take().map((e) => [e.op, e.className])).toEqual([['create', '_Session']]);

    const auth = { headers: { 'X-Svc-Session-Token': token } };
    expect((await svc.request('PUT', `/1/users/${userId}`, { ...auth, body: { nickname: 'b' } })).status).toBe(200);
    expect(take().map((e) => summary(e, ['nickname']))).toEqual([
      { op: 'update', app: 'test-app', className: '_User', objectId: userId, before: { nickname: 'a' }, after: { nickname: 'b' } },
    ]);

    expect((await svc.request('POST', '/1/logout', { headers: { 'X-Svc-Session-Token': login.body.sessionToken } })).status).toBe(200);
    expect(take().map((e) => [e.op, e.className])).toEqual([['delete', '_Session']]);

    expect((await svc.request('DELETE', `/1/users/${userId}`, auth)).status).toBe(200);
    const deleted = take();
    expect(deleted.filter((e) => e.className === '_User').map((e) => [e.op, e.objectId, e.before?.username, e.after])).toEqual([['delete', userId, 'ann', undefined]]);
    expect(deleted.filter((e) => e.className !== '_User').every((e) => e.op === 'delete' && e.className === '_Session')).toBe(true);
  });

  it('parallel Increments: every event has the exact before-image (after = before + 1)', async () => {
    const id = await create('Counter', { n: 0 });
    take();
    const results = await Promise.all(
      Array.from({ length: 40 }, () => svc.request('PUT', `/1/classes/Counter/${id}`, { body: { n: { __op: 'Increment', amount: 1 } } })),
    );
    expect(results.every((r) => r.status === 200)).toBe(true);
    const steps = take().map((e) => [e.before?.n, e.after?.n]);
    expect(steps).toHaveLength(40);
    expect(steps.every(([before, after]) => (after as number) === (before as number) + 1)).toBe(true);
    expect(new Set(steps.map(([before]) => before)).size).toBe(40);
  });

  it('fix 13.2: a sign-up with relation members is one create event (insert and members in one transaction)', async () => {
    const friend = { __type: 'Pointer', className: 'Player', objectId: 'p1' };
    const res = await svc.request('POST', '/1/users', { body: { username: 'bo', password: 'secret1', friends: { __op: 'AddRelation', objects: [friend] } } });
    expect(res.status).toBe(201);
    const userEvents = take().filter((e) => e.className === '_User');
    expect(userEvents.map((e) => [e.op, e.objectId, e.before, e.after?.username])).toEqual([['create', res.body.objectId, undefined, 'bo']]);
  });

  it('an observer that throws is logged and never fails the write; unsubscribed observers hear nothing', async () => {
    const logged: string[] = [];
    await svc.close();
    svc = startTestService({
      storage: makeStorage(),
      captcha: false,
      observers: [(e) => void events.push(e)],
      logger: { debug() {}, info() {}, warn() {}, error: (message) => void logged.push(message) },
    });
    const heard: WriteEvent[] = [];
    const unsubscribe = svc.service.onWrite((e) => {
      heard.push(e);
      throw new Error('observer bug');
    });
    const id = await create('GameScore', { score: 1 });
    expect(heard.map((e) => e.objectId)).toEqual([id]);
    expect(logged).toEqual(['write observer failed']);
    unsubscribe();
    await create('GameScore', { score: 2 });
    expect(heard).toHaveLength(1);
    expect(events).toHaveLength(2);
  });
});

describe.each(ADAPTERS)('observed storage transactions (%s)', (_name, makeStorage) => {
  it('a rolled-back nested transaction drops its events; the outer one delivers its own after commit', async () => {
    const events: WriteEvent[] = [];
    const svc = startTestService({ storage: makeStorage(), captcha: false, users: false, observers: [(e) => void events.push(e)] });
    const storage = svc.service.context.storage;
    const ref = { namespace: 'test_app', className: 'T' };
    await storage.ensureColumns(ref, { a: { type: 'Number' } });
    const at = { __type: 'Date', iso: '2026-01-01T00:00:00.000Z' } as never;
    const record = (objectId: string) => ({ objectId, createdAt: at, updatedAt: at, a: 1 }) as never;
    await storage.transaction(async (tx) => {
      await tx.insert(ref, record('outer00001'));
      await expect(
        tx.transaction(async (inner) => {
          await inner.insert(ref, record('inner00001'));
          throw new Error('roll back the savepoint');
        }),
      ).rejects.toThrow('roll back');
      expect(events).toEqual([]);
    });
    expect(events.map((e) => [e.op, e.objectId])).toEqual([['create', 'outer00001']]);
    expect(await storage.get(ref, 'inner00001')).toBeNull();
    await svc.close();
  });
});
