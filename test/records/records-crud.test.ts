import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import type { TestServer } from '../helpers/server.js';
import { startRecordsServer } from './records-server.js';

const DATE_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

describe('records REST: create, read, update, delete', () => {
  let server: TestServer;
  let clock: FakeClock;
  beforeEach(async () => {
    clock = new FakeClock(Date.UTC(2026, 0, 2, 3, 4, 5, 678));
    server = await startRecordsServer({ clock });
  });
  afterEach(() => server.close());

  it('creates with 201, {createdAt, objectId} and a Location header', async () => {
    const res = await server.request('POST', '/1/classes/GameScore', { body: { score: 1337, playerName: 'Sean Plott', cheatMode: false } });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['createdAt', 'objectId']);
    expect(res.body.createdAt).toBe('2026-01-02 03:04:05');
    expect(res.body.objectId).toMatch(/^[0-9a-zA-Z]{10}$/);
    expect(res.headers.get('location')).toBe(`${server.url}/1/classes/GameScore/${res.body.objectId}`);
  });

  it('reads the record back with typed values in wire form', async () => {
    const body = {
      score: 1337,
      skills: ['pwnage', 'flying'],
      when: { __type: 'Date', iso: '2011-08-21T18:02:52.249Z' },
      owner: { __type: 'Pointer', className: '_User', objectId: 'u1' },
      place: { __type: 'GeoPoint', latitude: 30, longitude: -20 },
      file: { __type: 'File', filename: 'a.xml', url: 'M00/01/a.xml', group: 'group1' },
      doc: { nested: { at: { __type: 'Date', iso: '2011-08-21 18:02:52' } } },
    };
    const created = await server.request('POST', '/1/classes/GameScore', { body });
    const res = await server.request('GET', `/1/classes/GameScore/${created.body.objectId}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...body,
      when: { __type: 'Date', iso: '2011-08-21 18:02:52.249' },
      doc: { nested: { at: { __type: 'Date', iso: '2011-08-21 18:02:52' } } },
      objectId: created.body.objectId,
      createdAt: '2026-01-02 03:04:05',
      updatedAt: '2026-01-02 03:04:05',
    });
  });

  it('updates with {updatedAt} and applies field operations', async () => {
    const created = await server.request('POST', '/1/classes/Game', {
      body: { score: 1, tags: ['a'], address: { city: 'Lyon' }, gone: 'x', counter: { __op: 'Increment', amount: 3 } },
    });
    clock.advance(60_000);
    const path = `/1/classes/Game/${created.body.objectId}`;
    const res = await server.request('PUT', path, {
      body: {
        score: { __op: 'Increment', amount: -2 },
        tags: { __op: 'AddUnique', objects: ['a', 'b'] },
        'address.city': 'Paris',
        gone: { __op: 'Delete' },
        extra: { __op: 'Add', objects: [1, 2] },
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ updatedAt: '2026-01-02 03:05:05' });
    const got = await server.request('GET', path);
    expect(got.body).toMatchObject({ score: -1, counter: 3, tags: ['a', 'b'], address: { city: 'Paris' }, extra: [1, 2], updatedAt: '2026-01-02 03:05:05' });
    expect(got.body).not.toHaveProperty('gone');
    await server.request('PUT', path, { body: { tags: { __op: 'Remove', objects: ['a'] } } });
    expect((await server.request('GET', path)).body.tags).toEqual(['b']);
  });

  it('deletes with {msg: "ok"}; a missing record is 101 with HTTP 404', async () => {
    const created = await server.request('POST', '/1/classes/Game', { body: { a: 1 } });
    const path = `/1/classes/Game/${created.body.objectId}`;
    expect(await server.request('DELETE', path)).toMatchObject({ status: 200, body: { msg: 'ok' } });
    for (const [method, body] of [['GET'], ['DELETE'], ['PUT', { a: 2 }]] as const) {
      const res = await server.request(method, path, { body });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ code: 101, error: `object not found for ${created.body.objectId}.` });
    }
  });

  it('reads one record with keys (a list or -exclusions)', async () => {
    const created = await server.request('POST', '/1/classes/Game', { body: { a: 1, b: 2, c: 3 } });
    const path = `/1/classes/Game/${created.body.objectId}`;
    const some = await server.request('GET', `${path}?keys=a,b`);
    expect(Object.keys(some.body).sort()).toEqual(['a', 'b', 'createdAt', 'objectId', 'updatedAt']);
    const rest = await server.request('GET', `${path}?keys=-a`);
    expect(Object.keys(rest.body).sort()).toEqual(['b', 'c', 'createdAt', 'objectId', 'updatedAt']);
    expect((await server.request('GET', `${path}?keys=a,-b`)).body.code).toBe(102);
  });

  it('reading from a table that does not exist is 101', async () => {
    const res = await server.request('GET', '/1/classes/Nothing/abcdefghij');
    expect(res.status).toBe(404);
    expect(res.body.code).toBe(101);
    expect((await server.request('PUT', '/1/classes/Nothing/abcdefghij', { body: { a: 1 } })).body.code).toBe(101);
  });

  it('creates with an empty body and routes a trailing slash', async () => {
    const res = await server.request('POST', '/1/classes/Empty/', { body: {} });
    expect(res.status).toBe(201);
    const got = await server.request('GET', `/1/classes/Empty/${res.body.objectId}`);
    expect(got.body).toEqual({ objectId: res.body.objectId, createdAt: expect.stringMatching(DATE_TIME), updatedAt: expect.stringMatching(DATE_TIME) });
  });

  it('shows createdAt/updatedAt in the application time zone', async () => {
    await server.close();
    server = await startRecordsServer({
      clock,
      applications: [{ applicationId: 'test-app', restApiKey: 'test-rest-key', masterKey: 'm', settings: { timeZone: 'Asia/Shanghai' } }],
    });
    const res = await server.request('POST', '/1/classes/Game', { body: { when: { __type: 'Date', iso: '2026-01-01 08:00:00' } } });
    expect(res.body.createdAt).toBe('2026-01-02 11:04:05');
    const got = await server.request('GET', `/1/classes/Game/${res.body.objectId}`);
    expect(got.body.when).toEqual({ __type: 'Date', iso: '2026-01-01 08:00:00' });
  });

  it('refuses writes to system tables without the master key unless a policy is registered', async () => {
    const refused = await server.request('POST', '/1/classes/_Installed', { body: { name: 'admins' } });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe(11006);
    const allowed = await server.request('POST', '/1/classes/_Installed', { body: { name: 'admins' }, auth: 'master' });
    expect(allowed.status).toBe(201);
    // `_Role` has its policy (access control): clients create roles, which are never public-write.
    const role = await server.request('POST', '/1/classes/_Role', { body: { name: 'admins' } });
    expect(role.status).toBe(201);
  });

  it('needs application credentials', async () => {
    const res = await server.request('POST', '/1/classes/Game', { body: { a: 1 }, auth: false });
    expect(res.status).toBe(401);
  });
});
