import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { svcError } from '../../src/core/errors.js';
import { tableRule } from '../../src/access/table-rules.js';
import { dateValue } from '../../src/core/values.js';
import type { StoredRecord } from '../../src/core/values.js';
import type { TestServer } from '../helpers/server.js';
import { startTestServer } from '../helpers/server.js';

const user: StoredRecord = { objectId: 'u1', createdAt: dateValue(0), updatedAt: dateValue(0), username: 'lily' } as StoredRecord;

describe('records: class policies and per-item batch tokens', () => {
  let server: TestServer;
  beforeEach(async () => {
    server = await startTestServer({
      users: false,
      features: [
        (_ctx, registry) => {
          registry.sessions = { resolve: async (_app, token) => (token === 'good-token' ? { objectId: 'u1', record: user, sessionId: 's1' } : null) };
          registry.records!.registerClassPolicy('Secret', {
            allowBatch: true,
            async beforeUpdate(ctx, _objectId, body) {
              if (!(await ctx.caller.user())) throw svcError('sessionInvalid');
              return { ...body, editedBy: (await ctx.caller.user())!.objectId };
            },
            beforeCreate: (_ctx, body) => ({ ...body, stamped: true }),
          });
          registry.records!.declareTable('Secret', tableRule({ secretColumns: ['hidden'] }));
          return { name: 'test-policies', routes: [] };
        },
      ],
    });
  });
  afterEach(() => server.close());

  it('hooks rewrite bodies, refuse requests and shape output', async () => {
    const created = await server.request('POST', '/1/classes/Secret', { body: { hidden: 'x', shown: 1 } });
    const path = `/1/classes/Secret/${created.body.objectId}`;
    const got = await server.request('GET', path);
    expect(got.body).toMatchObject({ shown: 1, stamped: true });
    expect(got.body).not.toHaveProperty('hidden');
    expect((await server.request('PUT', path, { body: { shown: 2 } })).body.code).toBe(211);
    const ok = await server.request('PUT', path, { body: { shown: 2 }, headers: { 'X-Svc-Session-Token': 'good-token' } });
    expect(ok.status).toBe(200);
    expect((await server.request('GET', path)).body).toMatchObject({ shown: 2, editedBy: 'u1' });
  });

  it('a policy hook runs only once access/ admitted the write: a row the caller may not write answers 101, as a missing one', async () => {
    const created = await server.request('POST', '/1/classes/Secret', { body: { shown: 1, ACL: { u1: { read: true, write: true } } }, auth: 'master' });
    const missing = 'AbCdEfGh12';
    const refused = async (id: string) => {
      const direct = await server.request('PUT', `/1/classes/Secret/${id}`, { body: { shown: 2 } });
      const batched = await server.request('POST', '/1/batch', { body: { requests: [{ method: 'PUT', path: `/1/classes/Secret/${id}`, body: { shown: 2 } }] } });
      return [direct.status, direct.body.code, batched.body[0]?.error?.code];
    };
    // Before: the hook's 211 (no session) answered first, for a row anonymous callers may not write.
    expect([await refused(created.body.objectId), await refused(missing)]).toEqual([
      [404, 101, 101],
      [404, 101, 101],
    ]);
    const ok = await server.request('PUT', `/1/classes/Secret/${created.body.objectId}`, { body: { shown: 2 }, headers: { 'X-Svc-Session-Token': 'good-token' } });
    expect(ok.status).toBe(200);
  });

  it('a batch item runs with its own token, else with the caller’s', async () => {
    const created = await server.request('POST', '/1/classes/Secret', { body: { shown: 1 } });
    const path = `/1/classes/Secret/${created.body.objectId}`;
    const res = await server.request('POST', '/1/batch', {
      body: {
        requests: [
          { method: 'PUT', path, body: { shown: 2 } },
          { method: 'PUT', path, body: { shown: 3 }, token: 'bad-token' },
          { method: 'PUT', path, body: { shown: 4 }, token: 'good-token' },
        ],
      },
    });
    expect(res.body.map((r: { error?: { code: number } }) => r.error?.code ?? 'ok')).toEqual([211, 211, 'ok']);
    const asCaller = await server.request('POST', '/1/batch', {
      body: { requests: [{ method: 'PUT', path, body: { shown: 5 } }] },
      headers: { 'X-Svc-Session-Token': 'good-token' },
    });
    expect(asCaller.body).toEqual([{ success: { updatedAt: expect.any(String) } }]);
  });
});
