import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FunctionModules } from '../../src/functions/contract.js';
import { TEST_APP, type TestServer, startTestServer } from '../helpers/server.js';

/** oData's user methods (rest-facts §7.2) in a host-defined function, callback and promise forms, over real HTTP. */
describe('oData user methods', () => {
  let server: TestServer;
  const run = (name: string, body: object) => server.request('POST', `/1/functions/${name}`, { body });

  beforeAll(async () => {
    const steps = async (modules: FunctionModules, body: Record<string, unknown>) => {
      const data = modules.oData;
      switch (body['op']) {
        case 'signUp':
          return data.userSignUp({ data: { username: String(body['u']), password: 'pw-123456', email: 'ann@example.com' } });
        case 'login':
          return data.userLogin({ username: String(body['u']), password: String(body['pw']) });
        case 'get':
          return data.getUserByObjectId({ objectId: String(body['id']) });
        case 'update':
          if (body['token']) data.setHeader({ 'X-Bmob-Session-Token': String(body['token']) });
          return data.updateUserByObjectId({ objectId: String(body['id']), data: { nickname: 'annie' } });
        case 'all':
          data.setHeader({ 'X-Bmob-Master-Key': TEST_APP.masterKey });
          return data.getAllUser({ limit: 10 });
        case 'remove':
          data.setHeader({ 'X-Bmob-Session-Token': String(body['token']) });
          return data.removeUserByObjectId({ objectId: String(body['id']) });
        default:
          return null;
      }
    };
    server = await startTestServer({
      captcha: false,
      functions: {
        definitions: {
          users(request, response, modules) {
            steps(modules, request.body).then(
              (value) => response.send(value),
              (error: { code?: number }) => response.send({ failed: error.code ?? -1 }),
            );
          },
          loginByCallback(request, response, modules) {
            modules.oData.userLogin({ username: String(request.body['u']), password: 'pw-123456' }, (err, data) => response.send(err ? { failed: err.code } : JSON.parse(data!)));
          },
        },
      },
    });
  });
  afterAll(() => server.close());

  it('signs up, logs in, reads, updates with the session, lists with the master key, removes', async () => {
    const created = (await run('users', { op: 'signUp', u: 'ann' })).body.result as { objectId: string; sessionToken: string };
    expect(created).toMatchObject({ objectId: expect.any(String), sessionToken: expect.any(String) });
    expect((await run('users', { op: 'signUp', u: 'ann' })).body.result).toEqual({ failed: 202 });
    expect((await run('users', { op: 'login', u: 'ann', pw: 'nope' })).body.result).toEqual({ failed: 101 });
    expect((await run('loginByCallback', { u: 'ann' })).body.result).toMatchObject({ objectId: created.objectId, sessionToken: expect.any(String) });
    expect((await run('users', { op: 'get', id: created.objectId })).body.result).toMatchObject({ username: 'ann' });
    expect((await run('users', { op: 'update', id: created.objectId })).body.result).toEqual({ failed: 206 });
    expect((await run('users', { op: 'update', id: created.objectId, token: created.sessionToken })).body.result).toMatchObject({ updatedAt: expect.any(String) });
    const all = (await run('users', { op: 'all' })).body.result as { results: Array<{ nickname?: string; password?: unknown }> };
    expect(all.results).toHaveLength(1);
    expect(all.results[0]).toMatchObject({ nickname: 'annie' });
    expect(all.results[0]!.password).toBeUndefined();
    expect((await run('users', { op: 'remove', id: created.objectId, token: created.sessionToken })).body.result).toEqual({ msg: 'ok' });
    expect((await server.request('GET', `/1/users/${created.objectId}`)).status).toBe(404);
  });

  it('reaches the same methods from a deployed function (callback style, getAllUser with only a callback)', async () => {
    const source = `function onRequest(request, response, modules) {
  modules.oData.userSignUp({ data: { username: 'bob', password: 'pw-123456' } }, function (err, data) {
    if (err) return response.send({ failed: err.code });
    modules.oData.setHeader({ 'X-Bmob-Master-Key': request.body.master });
    modules.oData.getAllUser(function (err2, all) { response.send(err2 ? { failed: err2.code } : JSON.parse(all).results.map(function (u) { return u.username; })); });
  });
}`;
    expect((await server.request('PUT', '/1/cloudCode/deployedUsers', { auth: 'master', body: { language: 'node', source } })).status).toBe(200);
    expect((await run('deployedUsers', { master: TEST_APP.masterKey })).body.result).toEqual(['bob']);
  });
});
