import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { memoryStorage } from '../../src/memory.js';
import type { StorageAdapter } from '../../src/storage/port.js';
import { type UsersServer, startUsersServer } from './users-server.js';

/** Memory storage that counts the calls reading records (find, count, aggregate). */
function countingStorage(): { storage: StorageAdapter; reads: () => number } {
  const inner = memoryStorage();
  let reads = 0;
  const storage = new Proxy(inner, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== 'function') return value;
      if (prop === 'find' || prop === 'count' || prop === 'aggregate') {
        return (...args: unknown[]) => {
          reads++;
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      }
      return (value as (...a: unknown[]) => unknown).bind(target);
    },
  });
  return { storage, reads: () => reads };
}

/** `n` decoy inner queries over made-up tables, then `hidden`: the shape of the reported attack. */
function decoyWhere(n: number, hidden: Record<string, unknown>): Record<string, unknown> {
  const decoys = Array.from({ length: n }, (_, i) => ({ [`d${i}`]: { $notInQuery: { className: `D${i}` } } }));
  return { $or: [...decoys, hidden] };
}

const passwordProbe = { author: { $inQuery: { className: '_User', where: { password: { $regex: '^scrypt\\$' } } } } };
const sessionProbe = { title: { $select: { query: { className: '_Session', where: {} }, key: 'userId' } } };
const listPaths = ['/1/classes/Post', '/1/classes/_User', '/1/users'];

let s: UsersServer;
let reads: () => number;
let annId: string;
beforeEach(async () => {
  const counted = countingStorage();
  reads = counted.reads;
  s = await startUsersServer({ storage: counted.storage, settings: { features: { regex: true } } });
  const ann = await s.signUp({ username: 'ann', password: 'pw' });
  annId = ann.objectId;
  const author = { __type: 'Pointer', className: '_User', objectId: annId };
  expect((await s.request('POST', '/1/classes/Post', { body: { title: annId, author } })).status).toBe(201);
});
afterEach(async () => s.close());

const get = (path: string, where: unknown, auth: true | 'master' = true) =>
  s.request('GET', `${path}?${new URLSearchParams({ where: JSON.stringify(where) })}`, { auth });

/** Sends the query and checks it is refused with `code` before any record is read. */
async function expectRefused(path: string, where: unknown, code: number, auth: true | 'master' = true) {
  const before = reads();
  const res = await get(path, where, auth);
  expect(res.status, `${path} ${auth}`).toBeGreaterThanOrEqual(400);
  expect(res.status).toBeLessThan(500);
  expect(res.body.code, `${path} ${auth}`).toBe(code);
  expect(res.body).not.toHaveProperty('results');
  expect(res.text).not.toContain('scrypt$');
  expect(reads(), 'storage was read before the refusal').toBe(before);
}

describe('D1: list guards see every table of the validated plan', () => {
  it('D1: the 64-decoy attack on _User.password is refused with a coded error before running', async () => {
    for (const path of listPaths) {
      for (const auth of [true, 'master'] as const) await expectRefused(path, decoyWhere(64, passwordProbe), 11100, auth);
    }
  });

  it('D1: decoys within the inner-query bound still leave the password probe visible (102)', async () => {
    for (const path of listPaths) {
      for (const auth of [true, 'master'] as const) await expectRefused(path, decoyWhere(15, passwordProbe), 102, auth);
    }
  });

  it('D1: password is refused in order, keys, groupby, aggregates and include fields, from any list', async () => {
    const q = (path: string, params: Record<string, string>) => s.request('GET', `${path}?${new URLSearchParams(params)}`);
    const attempts: Array<[string, Record<string, string>]> = [
      ['/1/users', { include: 'friend[username|password]' }],
      ['/1/classes/_User', { keys: '-password' }],
      ['/1/classes/_User', { groupby: 'password', groupcount: 'true' }],
      ['/1/classes/Post', { where: JSON.stringify({ title: { $select: { query: { className: '_User', where: {} }, key: 'password' } } }) }],
      ['/1/classes/Post', { where: JSON.stringify({ author: { $inQuery: { className: '_User', where: { 'password.x': { $exists: true } } } } }) }],
      ['/1/classes/Post', { where: JSON.stringify({ author: { $inQuery: { className: '_User', where: { $or: [{ password: { $gt: 's' } }] } } } }) }],
    ];
    for (const [path, params] of attempts) {
      const before = reads();
      const res = await q(path, params);
      expect(res.body.code, `${path} ${JSON.stringify(params)}`).toBe(102);
      expect(reads()).toBe(before);
    }
  });

  it('D1: count and statistics queries probing password are refused before running (no count oracle)', async () => {
    const probe = JSON.stringify(decoyWhere(15, passwordProbe));
    for (const path of listPaths) {
      const variants: Array<Record<string, string>> = [{ where: probe, count: '1', limit: '0' }, { where: probe, count: '1' }, { where: probe, groupcount: 'true', groupby: 'title' }];
      for (const params of variants) {
        const before = reads();
        const res = await s.request('GET', `${path}?${new URLSearchParams(params)}`);
        expect(res.body.code, `${path} ${JSON.stringify(params)}`).toBe(102);
        expect(res.body).not.toHaveProperty('count');
        expect(reads()).toBe(before);
      }
    }
  });

  it('D1: the same table names and columns still work when nothing secret is touched', async () => {
    const res = await get('/1/classes/Post', decoyWhere(14, { author: { $inQuery: { className: '_User', where: { username: 'ann' } } } }));
    expect(res.status).toBe(200);
    expect(res.body.results).toHaveLength(1);
  });
});

describe('D5: _Session is unreadable through inner queries', () => {
  it('D5: the decoy trick with $select on _Session.userId is refused without the master key', async () => {
    for (const path of listPaths) {
      await expectRefused(path, decoyWhere(64, sessionProbe), 11100);
      await expectRefused(path, decoyWhere(15, sessionProbe), 11006);
      await expectRefused(path, { author: { $inQuery: { className: '_Session', where: { userId: annId } } } }, 11006);
      await expectRefused(path, { $relatedTo: { object: { __type: 'Pointer', className: '_Session', objectId: 'x' }, key: 'users' } }, 11006);
    }
  });

  it('D5: with the master key the inner query over _Session runs', async () => {
    const res = await get('/1/classes/Post', decoyWhere(15, sessionProbe), 'master');
    expect(res.status).toBe(200);
    expect(res.body.results).toHaveLength(1);
  });
});
