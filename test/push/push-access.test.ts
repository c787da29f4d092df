import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApplicationConfig } from '../../src/app/application.js';
import type { PushTarget, PushTransport } from '../../src/push/index.js';
import { TEST_APP, type TestServer, startTestServer } from '../helpers/server.js';

/**
 * Access regressions of push over real HTTP: a client push's `where` (defect A: it ran as the master
 * key, inner queries included) and installation updates by a caller who may not write the row
 * (defect B: the policy read the stored row before access/ decided).
 */
const CLIENT_APP: ApplicationConfig = { ...TEST_APP, featureSettings: { push: { clientPush: true } } };
const pointer = (className: string, objectId: string) => ({ __type: 'Pointer', className, objectId });

/** An FCM transport that records which device tokens got a push. */
function recordingTransport(delivered: string[]): PushTransport {
  return {
    kind: 'fcm',
    send: async (target: PushTarget) => {
      if (target.kind === 'fcm') delivered.push(target.token);
      return { outcome: 'sent' };
    },
  };
}

describe('push access', () => {
  let server: TestServer;
  const delivered: string[] = [];
  const master = (method: string, path: string, body?: unknown) => server.request(method, path, { body, auth: 'master' });
  const as = (token: string, method: string, path: string, body?: unknown) => server.request(method, path, { body, headers: { 'X-Svc-Session-Token': token } });
  const signUp = async (username: string) => (await server.request('POST', '/1/users', { body: { username, password: 'pw123456' } })).body as { objectId: string; sessionToken: string };
  let ann: { objectId: string; sessionToken: string };
  let bob: { objectId: string; sessionToken: string };

  beforeAll(async () => {
    server = await startTestServer({ captcha: false, applications: [CLIENT_APP], push: { fcm: recordingTransport(delivered) } });
    ann = await signUp('ann');
    bob = await signUp('bob');
  });
  afterAll(() => server.close());

  describe('client push: the where reads other tables as the sender (defect A)', () => {
    const BOB_DEVICE = 'bob-device-0001';
    const ANN_DEVICE = 'ann-device-0001';
    const ids = { note: '', box: '' };

    beforeAll(async () => {
      const annOnly = { [ann.objectId]: { read: true, write: true } };
      ids.note = (await as(ann.sessionToken, 'POST', '/1/classes/Note', { secret: 'salary=9000', ACL: annOnly })).body.objectId;
      const bobInstallation = await as(bob.sessionToken, 'POST', '/1/installations', { deviceType: 'android', deviceToken: BOB_DEVICE, note: pointer('Note', ids.note), guess: 'salary=9000' });
      expect(bobInstallation.status).toBe(201);
      expect((await as(ann.sessionToken, 'POST', '/1/installations', { deviceType: 'android', deviceToken: ANN_DEVICE, tag: 'private' })).status).toBe(201);
      ids.box = (await as(ann.sessionToken, 'POST', '/1/classes/Box', { devices: { __op: 'AddRelation', objects: [pointer('_Installation', bobInstallation.body.objectId)] }, ACL: annOnly })).body.objectId;
    });

    /** Sends a client push to `where`: the reply's code (or 'sent') and the devices that got it. */
    const push = async (token: string, where: object) => {
      delivered.length = 0;
      const res = await as(token, 'POST', '/1/push', { data: { alert: 'x' }, where });
      await server.service.registry.push!.idle();
      return [res.body.code ?? 'sent', [...delivered].sort()];
    };
    const onBob = (where: object) => ({ deviceToken: BOB_DEVICE, ...where });
    const innerQuery = (secret: string) => ({ className: 'Note', where: { secret } });

    it('an inner query answers as a find of its table by the sender: no oracle on a record it cannot read', async () => {
      const probes: Record<string, (secret: string) => object> = {
        $inQuery: (secret) => onBob({ note: { $inQuery: innerQuery(secret) } }),
        $notInQuery: (secret) => onBob({ note: { $notInQuery: innerQuery(secret) } }),
        $select: (secret) => onBob({ guess: { $select: { query: innerQuery(secret), key: 'secret' } } }),
        $dontSelect: (secret) => onBob({ guess: { $dontSelect: { query: innerQuery(secret), key: 'secret' } } }),
      };
      const seen: Record<string, unknown> = {};
      for (const [operator, probe] of Object.entries(probes)) {
        seen[operator] = {
          bob: [await push(bob.sessionToken, probe('salary=9000')), await push(bob.sessionToken, probe('salary=1'))],
          ann: [await push(ann.sessionToken, probe('salary=9000')), await push(ann.sessionToken, probe('salary=1'))],
        };
      }
      const none = ['sent', []];
      const bobs = ['sent', [BOB_DEVICE]];
      // Bob reads no Note: his pushes are the same whatever the secret is. Ann reads hers: they differ.
      expect(seen).toEqual({
        $inQuery: { bob: [none, none], ann: [bobs, none] },
        $notInQuery: { bob: [bobs, bobs], ann: [none, bobs] },
        $select: { bob: [none, none], ann: [bobs, none] },
        $dontSelect: { bob: [bobs, bobs], ann: [none, bobs] },
      });
    });

    it('$relatedTo over an owner the sender cannot read matches nothing', async () => {
      const where = onBob({ $relatedTo: { object: pointer('Box', ids.box), key: 'devices' } });
      expect(await push(bob.sessionToken, where)).toEqual(['sent', []]);
      expect(await push(ann.sessionToken, where)).toEqual(['sent', [BOB_DEVICE]]);
    });

    it('an inner query over a master-only table is refused as REST refuses it (11006), and nothing is sent', async () => {
      for (const className of ['_Session', '_Installation', '_PushStatus']) {
        expect([className, await push(bob.sessionToken, onBob({ user: { $inQuery: { className, where: {} } } }))]).toEqual([className, [11006, []]]);
      }
      expect(await push(bob.sessionToken, onBob({ guess: { $select: { query: { className: '_Session', where: {} }, key: 'sessionToken' } } }))).toEqual([11006, []]);
      // The master key still may.
      const byMaster = await master('POST', '/1/push', { data: { alert: 'x' }, where: onBob({ objectId: { $nin: [] }, user: { $notInQuery: { className: '_Session', where: {} } } }) });
      expect(byMaster.body).toEqual({ result: true, pushStatusId: expect.any(String) });
      await server.service.registry.push!.idle();
    });

    it('a column of _Installation hidden from the sender cannot be named in its where (102); targeting stays open', async () => {
      await master('PUT', '/1/schemas/_Installation', { classLevelPermissions: { protectedFields: { '*': ['tag'] } } });
      try {
        expect(await push(bob.sessionToken, { tag: 'private' })).toEqual([102, []]);
        expect(await push(bob.sessionToken, { deviceToken: ANN_DEVICE, tag: { $exists: true } })).toEqual([102, []]);
        delivered.length = 0;
        expect((await master('POST', '/1/push', { data: { alert: 'x' }, where: { tag: 'private' } })).status).toBe(200);
        await server.service.registry.push!.idle();
        expect(delivered).toEqual([ANN_DEVICE]);
        // Client push targets any installation by its visible fields, as Parse Server's does.
        expect(await push(bob.sessionToken, { deviceToken: ANN_DEVICE })).toEqual(['sent', [ANN_DEVICE]]);
      } finally {
        await master('PUT', '/1/schemas/_Installation', { classLevelPermissions: { protectedFields: {} } });
      }
    });
  });

  describe('installation updates: a row the caller may not write answers as a missing one (defect B)', () => {
    const subscription = { endpoint: 'https://fcm.googleapis.com/fcm/send/abc', keys: { p256dh: 'BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQ', auth: 'tBHItJI5svbpez7KI4CCXg' } };
    const bodies = [{ deviceType: 'ios' }, { deviceType: 'web' }, { deviceType: 'fax' }, { channels: ['ok', 'not ok'] }, { label: 'x' }];

    it('bob gets 101 for every body, whatever ann’s installation is, exactly as for no installation', async () => {
      const annOnly = { [ann.objectId]: { read: true, write: true } };
      const readOnly = { '*': { read: true }, [ann.objectId]: { read: true, write: true } };
      const rows = {
        web: { deviceType: 'web', subscription, ACL: annOnly },
        android: { deviceType: 'android', deviceToken: 'token-of-ann-123', ACL: annOnly },
        publicRead: { deviceType: 'android', deviceToken: 'token-of-ann-456', ACL: readOnly },
      };
      const ids: Record<string, string> = { missing: 'AbCdEfGh12' };
      for (const [name, body] of Object.entries(rows)) ids[name] = (await as(ann.sessionToken, 'POST', '/1/installations', body)).body.objectId;
      const seen: Record<string, unknown[]> = {};
      for (const [name, id] of Object.entries(ids)) {
        seen[name] = [];
        for (const body of bodies) {
          const res = await as(bob.sessionToken, 'PUT', `/1/installations/${id}`, body);
          seen[name]!.push([res.status, String(res.body.error).replace(id, '<id>')]);
        }
      }
      const missing = bodies.map(() => [404, 'object not found for <id>.']);
      expect(seen).toEqual({ missing, web: missing, android: missing, publicRead: missing });
      // The installation is unchanged, and its owner still gets the policy's checks.
      expect((await as(ann.sessionToken, 'GET', `/1/installations/${ids.web}`)).body.deviceType).toBe('web');
      expect((await as(ann.sessionToken, 'PUT', `/1/installations/${ids.web}`, { deviceType: 'ios' })).body.code).toBe(131);
      expect((await as(ann.sessionToken, 'PUT', `/1/installations/${ids.android}`, { channels: ['news'] })).status).toBe(200);
    });
  });
});
