import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Logger } from '../../src/core/logger.js';
import { memoryStorage } from '../../src/memory.js';
import { sqliteStorage } from '../../src/storage/sqlite/index.js';
import type { StorageAdapter } from '../../src/storage/port.js';
import type { AfterSaveContext, BeforeSaveContext, DeleteContext } from '../../src/events/write-hook-types.js';
import { type TestServer, startTestServer } from '../helpers/server.js';
import { FAST_SCRYPT } from '../users/users-server.js';

const ADAPTERS: Array<[string, () => StorageAdapter]> = [
  ['memory', () => memoryStorage()],
  ['sqlite', () => sqliteStorage({ database: new Database(':memory:') })],
];

describe.each(ADAPTERS)('host write hooks over a real socket (%s)', (_name, makeStorage) => {
  let srv: TestServer;
  let saved: AfterSaveContext[];
  let deleted: DeleteContext[];
  let logged: string[];
  const logger: Logger = {
    debug: () => undefined,
    info: () => undefined,
    warn: () => undefined,
    error: (message) => void logged.push(message),
  };

  beforeEach(async () => {
    saved = [];
    deleted = [];
    logged = [];
    srv = await startTestServer({
      storage: makeStorage(),
      captcha: false,
      logger,
      users: { scrypt: FAST_SCRYPT },
      hooks: {
        Post: {
          beforeSave: (ctx) => {
            if (ctx.op === 'create') {
              if (ctx.object.title === 'spam') throw new Error('no spam, please');
              ctx.object.slug = String(ctx.object.title).toLowerCase();
            } else if (ctx.changes.title === 'spam') {
              throw new Error('still no spam');
            } else if (typeof ctx.changes.title === 'string') {
              ctx.changes.title = ctx.changes.title.trim();
            }
          },
          afterSave: (ctx) => void saved.push(ctx),
          beforeDelete: (ctx) => {
            if (ctx.original.locked === true) throw new Error('locked posts stay');
          },
          afterDelete: (ctx) => void deleted.push(ctx),
        },
      },
    });
  });
  afterEach(() => srv.close());

  const count = async (className: string): Promise<number> =>
    (await srv.request('GET', `/1/classes/${className}?count=1&limit=0`, { auth: 'master' })).body.count as number;

  it('REST create: beforeSave changes persist, afterSave sees the committed record and the caller', async () => {
    let seenCaller: BeforeSaveContext['caller'];
    srv.service.hooks.beforeSave('Post', (ctx) => void (seenCaller = ctx.caller));
    const res = await srv.request('POST', '/1/classes/Post', { body: { title: 'Hello' } });
    expect(res.status).toBe(201);
    const id = res.body.objectId as string;
    const got = await srv.request('GET', `/1/classes/Post/${id}`);
    expect(got.body).toMatchObject({ title: 'Hello', slug: 'hello' });
    expect(seenCaller?.app.applicationId).toBe('test-app');
    expect(seenCaller?.credential).toBe('rest');
    expect(seenCaller?.isMaster).toBe(false);
    expect(saved.map((s) => [s.op, s.objectId, s.object.slug, s.original, s.caller?.app.applicationId])).toEqual([['create', id, 'hello', undefined, 'test-app']]);
  });

  it('REST create refused by beforeSave: coded 11110 with the host message, nothing written, no afterSave', async () => {
    const res = await srv.request('POST', '/1/classes/Post', { body: { title: 'spam' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 11110, error: 'no spam, please' });
    expect(await count('Post')).toBe(0);
    expect(saved).toEqual([]);
  });

  it('REST update: beforeSave sees the original and the set values; its change persists; refusal writes nothing', async () => {
    const id = (await srv.request('POST', '/1/classes/Post', { body: { title: 'A', n: 1 } })).body.objectId as string;
    saved.length = 0;
    let original: BeforeSaveContext | undefined;
    srv.service.hooks.beforeSave('Post', (ctx) => void (original = ctx));
    const put = await srv.request('PUT', `/1/classes/Post/${id}`, { body: { title: '  B  ', n: { __op: 'Increment', amount: 2 } }, auth: 'master' });
    expect(put.status).toBe(200);
    expect(original?.op).toBe('update');
    if (original?.op === 'update') {
      expect(original.original.title).toBe('A');
      expect(original.changes).toEqual({ title: 'B' });
      expect(original.caller?.isMaster).toBe(true);
    }
    expect((await srv.request('GET', `/1/classes/Post/${id}`)).body).toMatchObject({ title: 'B', n: 3 });
    expect(saved.map((s) => [s.op, s.original?.title, s.object.title])).toEqual([['update', 'A', 'B']]);

    const refused = await srv.request('PUT', `/1/classes/Post/${id}`, { body: { title: 'spam', n: { __op: 'Increment', amount: 5 } } });
    expect(refused.body).toEqual({ code: 11110, error: 'still no spam' });
    expect((await srv.request('GET', `/1/classes/Post/${id}`)).body).toMatchObject({ title: 'B', n: 3 });
    expect(saved).toHaveLength(1);
  });

  it('REST delete: beforeDelete can refuse (record kept); afterDelete gets the before-image', async () => {
    const locked = (await srv.request('POST', '/1/classes/Post', { body: { title: 'L', locked: true } })).body.objectId as string;
    const open = (await srv.request('POST', '/1/classes/Post', { body: { title: 'O', locked: false } })).body.objectId as string;
    const refused = await srv.request('DELETE', `/1/classes/Post/${locked}`);
    expect(refused.body).toEqual({ code: 11110, error: 'locked posts stay' });
    expect((await srv.request('GET', `/1/classes/Post/${locked}`)).status).toBe(200);
    expect((await srv.request('DELETE', `/1/classes/Post/${open}`)).status).toBe(200);
    expect(deleted.map((d) => [d.op, d.objectId, d.original.title])).toEqual([['delete', open, 'O']]);
  });

  it('batch without transaction: a refused item fails alone; the others are written and hooked', async () => {
    const res = await srv.request('POST', '/1/batch', {
      body: {
        requests: [
          { method: 'POST', path: '/1/classes/Post', body: { title: 'One' } },
          { method: 'POST', path: '/1/classes/Post', body: { title: 'spam' } },
        ],
      },
    });
    expect(res.status).toBe(200);
    expect(res.body[1]).toEqual({ error: { code: 11110, error: 'no spam, please' } });
    expect(await count('Post')).toBe(1);
    const id = res.body[0].success.objectId as string;
    expect((await srv.request('GET', `/1/classes/Post/${id}`)).body.slug).toBe('one');
    expect(saved.map((s) => s.objectId)).toEqual([id]);
  });

  it('batch with transaction: a refusal rolls every item back and no afterSave runs', async () => {
    const res = await srv.request('POST', '/1/batch', {
      body: {
        transaction: true,
        requests: [
          { method: 'POST', path: '/1/classes/Post', body: { title: 'One' } },
          { method: 'POST', path: '/1/classes/Post', body: { title: 'spam' } },
        ],
      },
    });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(JSON.stringify(res.body)).toContain('11110');
    expect(await count('Post')).toBe(0);
    expect(saved).toEqual([]);
  });

  it('batch with transaction that commits: beforeSave changes persist and afterSave runs once per record', async () => {
    const res = await srv.request('POST', '/1/batch', {
      body: {
        transaction: true,
        requests: [
          { method: 'POST', path: '/1/classes/Post', body: { title: 'X' } },
          { method: 'POST', path: '/1/classes/Post', body: { title: 'Y' } },
        ],
      },
    });
    expect(res.status).toBe(200);
    expect(saved.map((s) => s.object.slug).sort()).toEqual(['x', 'y']);
  });

  it('users sign-up: beforeSave on _User can add a field or refuse the sign-up', async () => {
    srv.service.hooks.beforeSave('_User', (ctx) => {
      if (ctx.op !== 'create') return;
      if (ctx.object.username === 'mallory') throw new Error('not you');
      ctx.object.tier = 'free';
    });
    const ok = await srv.request('POST', '/1/users', { body: { username: 'ann', password: 'secret1' } });
    expect(ok.status).toBe(201);
    const me = await srv.request('GET', '/1/users/me', { headers: { 'X-Svc-Session-Token': ok.body.sessionToken } });
    expect(me.body.tier).toBe('free');
    const refused = await srv.request('POST', '/1/users', { body: { username: 'mallory', password: 'secret1' } });
    expect(refused.body).toEqual({ code: 11110, error: 'not you' });
    expect(await count('_User')).toBe(1);
  });

  it('afterSave errors are logged and never fail the write; unregistering stops a hook', async () => {
    const off = srv.service.hooks.afterSave('Post', () => {
      throw new Error('boom');
    });
    expect((await srv.request('POST', '/1/classes/Post', { body: { title: 'Z' } })).status).toBe(201);
    expect(logged).toEqual(['afterSave hook failed']);
    off();
    expect((await srv.request('POST', '/1/classes/Post', { body: { title: 'W' } })).status).toBe(201);
    expect(logged).toHaveLength(1);
  });

  it('a beforeSave changing objectId is refused with 11111 and nothing is written', async () => {
    srv.service.hooks.beforeSave('Post', (ctx) => {
      if (ctx.op === 'create') ctx.object.objectId = 'forged0000';
    });
    const res = await srv.request('POST', '/1/classes/Post', { body: { title: 'Q' } });
    expect(res.body.code).toBe(11111);
    expect(await count('Post')).toBe(0);
  });

  it('a beforeSave value of the wrong type for an existing column is refused with 111', async () => {
    await srv.request('POST', '/1/classes/Post', { body: { title: 'first', n: 1 } });
    srv.service.hooks.beforeSave('Post', (ctx) => {
      if (ctx.op === 'create') ctx.object.n = 'not a number';
    });
    const res = await srv.request('POST', '/1/classes/Post', { body: { title: 'second', n: 2 } });
    expect(res.body.code).toBe(111);
    expect(await count('Post')).toBe(1);
  });

  it.each([
    ['a Date instance', (o: Record<string, unknown>) => void (o.when = new Date())],
    ['a function', (o: Record<string, unknown>) => void (o.fn = () => 1)],
    ['NaN', (o: Record<string, unknown>) => void (o.n = Number.NaN)],
    ['an invalid field name', (o: Record<string, unknown>) => void (o['bad name'] = 1)],
    ['a nested __proto__ key', (o: Record<string, unknown>) => void (o.nested = JSON.parse('{"__proto__": {"x": 1}}'))],
  ])('a beforeSave setting %s is refused with 11117 and nothing is written', async (_what, change) => {
    srv.service.hooks.beforeSave('Post', (ctx) => {
      if (ctx.op === 'create') change(ctx.object as Record<string, unknown>);
    });
    const res = await srv.request('POST', '/1/classes/Post', { body: { title: 'Q' } });
    expect(res.body.code).toBe(11117);
    expect(await count('Post')).toBe(0);
  });

  it('a beforeSave setting a key to undefined drops it (create and update)', async () => {
    srv.service.hooks.beforeSave('Post', (ctx) => {
      if (ctx.op === 'create') (ctx.object as Record<string, unknown>).secret = undefined;
      else (ctx.changes as Record<string, unknown>).secret = undefined;
    });
    const id = (await srv.request('POST', '/1/classes/Post', { body: { title: 'S', secret: 'x' } })).body.objectId as string;
    expect((await srv.request('GET', `/1/classes/Post/${id}`)).body.secret).toBeUndefined();
    expect((await srv.request('PUT', `/1/classes/Post/${id}`, { body: { secret: 'y', title: 'T' } })).status).toBe(200);
    expect((await srv.request('GET', `/1/classes/Post/${id}`)).body).toMatchObject({ title: 'T' });
    expect((await srv.request('GET', `/1/classes/Post/${id}`)).body.secret).toBeUndefined();
  });

  it('classes without hooks are untouched', async () => {
    const res = await srv.request('POST', '/1/classes/Other', { body: { title: 'spam' } });
    expect(res.status).toBe(201);
    expect((await srv.request('GET', `/1/classes/Other/${res.body.objectId}`)).body.slug).toBeUndefined();
  });
});
