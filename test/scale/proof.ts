import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, opened } from '../realtime/harness.js';
import { requestSignature } from '../../src/http/signature.js';
import { connectTestRedis, deleteKeys } from '../redis/redis-env.js';
import { SCALE_APP } from './scale-app.js';
import { type Cluster, type InstanceMessage, startCluster, storageUnavailable } from './harness.js';
import type { ScaleStorageMode } from './storage-factory.js';

/**
 * Issue 14 item 4: two service PROCESSES on one storage (a shared SQLite file, or one PostgreSQL
 * database) and one Redis (KvStore, CounterStore, realtime bus), requests spread over both. Each test
 * file defines the proof for one storage; the control run (nothing shared) runs with SQLite only.
 */
export async function defineMultiInstanceProof(mode: ScaleStorageMode, options: { control?: boolean } = {}): Promise<void> {
const redis = await connectTestRedis('scale');
const unavailable = await storageUnavailable(mode);
if (unavailable) {
  if (process.env.CI === 'true') throw new Error(`[scale] ${unavailable}; CI needs it`);
  console.warn(`\n${'!'.repeat(78)}\n!! scale: SKIPPING the multi-instance proof on ${mode}: ${unavailable}.\n${'!'.repeat(78)}\n`);
}

const HEADERS = { 'X-Svc-Application-Id': SCALE_APP.applicationId, 'X-Svc-REST-API-Key': SCALE_APP.restApiKey };
type Reply = { status: number; body: any };

describe.skipIf(!redis || unavailable !== null || !options.control)('multi-instance proof: the control run', () => {
  it('with per-process memory stores (nothing shared) the SMS race accepts one request per instance: the proof can fail', async () => {
    const cluster = await startCluster(mode, { stores: 'memory' });
    try {
      const replies = await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          fetch(`${cluster.instances[i % 2]!.url}/1/requestSmsCode`, {
            method: 'POST',
            headers: { ...HEADERS, 'content-type': 'application/json' },
            body: JSON.stringify({ mobilePhoneNumber: '13800000009' }),
          }).then((r) => r.status),
        ),
      );
      expect(replies.filter((s) => s === 200)).toHaveLength(2);
    } finally {
      await cluster.stop();
    }
  }, 60_000);
});

describe.skipIf(!redis || unavailable !== null)(`multi-instance proof: two processes on ${mode} + Redis`, () => {
  let cluster: Cluster;
  beforeAll(async () => {
    cluster = await startCluster(mode);
  }, 60_000);
  afterAll(async () => {
    await cluster?.stop();
    if (cluster) await deleteKeys(redis!, cluster.redisPrefix);
    await redis!.quit();
  });

  /** Request number `i` goes to instance `i % 2`: every race is spread evenly over both processes. */
  const on = (i: number) => cluster.instances[i % cluster.instances.length]!.url;
  async function call(url: string, method: string, path: string, body?: unknown, headers: Record<string, string> = HEADERS): Promise<Reply> {
    const res = await fetch(url + path, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text.startsWith('{') || text.startsWith('[') ? JSON.parse(text) : text };
  }
  const race = (n: number, request: (url: string, i: number) => Promise<Reply>) => Promise.all(Array.from({ length: n }, (_, i) => request(on(i), i)));
  const statuses = (replies: Reply[]) => {
    const counts: Record<string, number> = {};
    for (const r of replies) counts[`${r.status}:${r.body?.code ?? 'ok'}`] = (counts[`${r.status}:${r.body?.code ?? 'ok'}`] ?? 0) + 1;
    return counts;
  };
  /** Waits (real time, polled) until the instances delivered a message matching `match`. */
  async function delivered<T extends InstanceMessage['type']>(type: T, match: (m: Extract<InstanceMessage, { type: T }>) => boolean) {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const found = cluster.inbox.filter((m): m is Extract<InstanceMessage, { type: T }> => m.type === type && match(m as Extract<InstanceMessage, { type: T }>));
      if (found.length > 0) return found;
      if (Date.now() > deadline) throw new Error(`no ${type} delivered`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  it('1,000 concurrent requestSmsCode for one number over both: exactly one accepted, one SMS sent', async () => {
    const phone = '13800000001';
    const replies = await race(1000, (url) => call(url, 'POST', '/1/requestSmsCode', { mobilePhoneNumber: phone }));
    expect(statuses(replies)).toEqual({ '200:ok': 1, '429:10010': 999 });
    expect(await delivered('sms', (m) => m.to === phone)).toHaveLength(1);
  }, 60_000);

  it('1,000 concurrent Increments over both: the counter is exactly 1,000', async () => {
    const created = await call(on(0), 'POST', '/1/classes/Counter', { n: 0 });
    expect(created.status).toBe(201);
    const id = created.body.objectId as string;
    const replies = await race(1000, (url) => call(url, 'PUT', `/1/classes/Counter/${id}`, { n: { __op: 'Increment', amount: 1 } }));
    expect(statuses(replies)).toEqual({ '200:ok': 1000 });
    for (const url of [on(0), on(1)]) expect((await call(url, 'GET', `/1/classes/Counter/${id}`)).body.n).toBe(1000);
  }, 60_000);

  it('concurrent sign-ups with one username over both: exactly one user', async () => {
    const replies = await race(100, (url, i) => call(url, 'POST', '/1/users', { username: 'same-name', password: `pw-${i}` }));
    expect(statuses(replies)).toEqual({ '201:ok': 1, '400:202': 99 });
    const where = encodeURIComponent(JSON.stringify({ username: 'same-name' }));
    const found = await call(on(1), 'GET', `/1/users?where=${where}`, undefined, { ...HEADERS, 'X-Svc-Master-Key': SCALE_APP.masterKey });
    expect(found.body.results).toHaveLength(1);
  }, 60_000);

  it('an SMS code verified concurrently on both: exactly one success', async () => {
    const phone = '13800000002';
    expect((await call(on(0), 'POST', '/1/requestSmsCode', { mobilePhoneNumber: phone })).status).toBe(200);
    const code = (await delivered('sms', (m) => m.to === phone))[0]!.code;
    const replies = await race(200, (url) => call(url, 'POST', `/1/verifySmsCode/${code}`, { mobilePhoneNumber: phone }));
    expect(replies.filter((r) => r.status === 200)).toHaveLength(1);
    expect(replies.filter((r) => r.status === 200)[0]!.body).toEqual({ msg: 'ok' });
  }, 60_000);

  it('a captcha answered concurrently on both gives one validate_token, which one SMS send consumes', async () => {
    const asked = await call(on(0), 'POST', '/1/requestCaptcha');
    expect(asked.status).toBe(200);
    const text = (await delivered('captcha', () => true)).at(-1)!.text;
    const verified = await race(100, (url) => call(url, 'POST', '/1/verifyCaptcha', { captcha_code: text, captcha_token: asked.body.captcha_token }));
    const tokens = verified.filter((r) => r.status === 200).map((r) => r.body.validate_token as string);
    expect(tokens).toHaveLength(1);
    const sends = await race(100, (url, i) =>
      call(url, 'POST', '/1/requestSmsCode', { mobilePhoneNumber: `139${String(i).padStart(8, '0')}`, template: 'guarded', validate_token: tokens[0] }),
    );
    expect(statuses(sends)).toEqual({ '200:ok': 1, '400:11012': 99 });
  }, 60_000);

  it('a password-reset link used concurrently on both: exactly one password change', async () => {
    expect((await call(on(0), 'POST', '/1/users', { username: 'resetter', password: 'old-pw', email: 'reset@scale.test' })).status).toBe(201);
    expect((await call(on(1), 'POST', '/1/requestPasswordReset', { email: 'reset@scale.test' })).body).toEqual({ msg: 'ok' });
    const text = (await delivered('mail', (m) => m.to === 'reset@scale.test'))[0]!.text;
    const token = /token=([0-9a-f]{64})/.exec(text)![1]!;
    const replies = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        fetch(`${on(i)}/1/resetPassword`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ token, password: `new-pw-${i}`, confirm: `new-pw-${i}` }).toString(),
        }).then((r) => r.status),
      ),
    );
    expect(replies.filter((s) => s === 200)).toHaveLength(1);
    expect(replies.filter((s) => s === 400)).toHaveLength(99);
  }, 60_000);

  it('realtime over Redis pub/sub: a write on either process reaches the subscribers of both, exactly once', async () => {
    const clients = await Promise.all(
      cluster.instances.map(async ({ url }) => {
        const client = opened(await connect(`${url.replace(/^http/, 'ws')}/1/realtime`, HEADERS));
        expect((await client.json()).op).toBe('connected');
        client.send({ op: 'subscribe', id: 't', action: 'updateTable', tableName: 'Fanout' });
        expect(await client.json()).toMatchObject({ op: 'subscribed', id: 't' });
        return client;
      }),
    );
    const fromA = (await call(on(0), 'POST', '/1/classes/Fanout', { n: 1 })).body.objectId as string;
    const fromB = (await call(on(1), 'POST', '/1/classes/Fanout', { n: 2 })).body.objectId as string;
    for (const client of clients) {
      const events = [await client.json(), await client.json()];
      expect(events.map((e) => e.objectId).sort()).toEqual([fromA, fromB].sort());
      client.send({ op: 'ping' });
      expect(await client.json()).toEqual({ op: 'pong' }); // nothing delivered twice
      client.ws.terminate();
    }
  });

  it('class-level permissions and roles changed through one instance apply on the other at once, not after its 5 s cache', async () => {
    const master = { ...HEADERS, 'X-Svc-Master-Key': SCALE_APP.masterKey };
    /** Polls (real time) until `check` holds; 3 s, well under the caches' 5 s bound. */
    const soon = async (check: () => Promise<boolean>) => {
      const deadline = Date.now() + 3000;
      while (!(await check())) {
        if (Date.now() > deadline) throw new Error('the other instance still serves its cached entry');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    await call(on(0), 'POST', '/1/classes/Guarded', { n: 1 });
    expect((await call(on(1), 'GET', '/1/classes/Guarded')).status).toBe(200); // instance 1 caches "open"
    expect((await call(on(0), 'PUT', '/1/schemas/Guarded', { classLevelPermissions: { find: { 'role:readers': true } } }, master)).status).toBe(200);
    await soon(async () => (await call(on(1), 'GET', '/1/classes/Guarded')).body?.code === 11171);
    // A role granted through instance 0 lets its member read through instance 1.
    const user = await call(on(0), 'POST', '/1/users', { username: 'reader', password: 'pw' });
    const asUser = { ...HEADERS, 'X-Svc-Session-Token': user.body.sessionToken as string };
    expect((await call(on(1), 'GET', '/1/classes/Guarded', undefined, asUser)).body.code).toBe(11171); // cached: no roles
    const role = await call(on(0), 'POST', '/1/roles', { name: 'readers', ACL: { '*': { read: true } } }, master);
    expect(role.status).toBe(201);
    const grant = { users: { __op: 'AddRelation', objects: [{ __type: 'Pointer', className: '_User', objectId: user.body.objectId }] } };
    expect((await call(on(0), 'PUT', `/1/roles/${role.body.objectId}`, grant, master)).status).toBe(200);
    await soon(async () => (await call(on(1), 'GET', '/1/classes/Guarded', undefined, asUser)).status === 200);
  }, 60_000);

  it('a signed request replayed against the other instance is refused', async () => {
    const signed = (nonce: string) => {
      const timestamp = String(Math.floor(Date.now() / 1000));
      const sign = requestSignature({ path: '/1/classes/Counter', timestamp, securityCode: SCALE_APP.securityCode!, nonce, body: '', sdkVersion: '10' });
      return {
        'X-Svc-Secret-Key': SCALE_APP.secretKey!,
        'X-Svc-Safe-Timestamp': timestamp,
        'X-Svc-Noncestr-Key': nonce,
        'X-Svc-SDK-Version': '10',
        'X-Svc-Safe-Sign': sign,
        'X-Svc-SDK-Type': 'nodejs',
      };
    };
    const headers = signed('replayacross1234');
    expect((await call(on(0), 'GET', '/1/classes/Counter', undefined, headers)).status).toBe(200);
    expect(await call(on(1), 'GET', '/1/classes/Counter', undefined, headers)).toEqual({ status: 401, body: { error: 'unauthorized' } });
    // The other instance does accept signed requests: a fresh one passes.
    expect((await call(on(1), 'GET', '/1/classes/Counter', undefined, signed('freshnonce123456'))).status).toBe(200);
  });
});
}
