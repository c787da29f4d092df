import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StartedServer, start } from '../../src/cli/serve.js';
import { type OwnRedis, ownDatabase, ownRedis, until } from '../helpers/store-processes.js';
import { type TcpProxy, tcpProxy } from '../helpers/tcp-proxy.js';

const KEYS = { 'X-Svc-Application-Id': 'dev-app-id', 'X-Svc-REST-API-Key': 'dev-rest-key', 'content-type': 'application/json' };
/** The bound of issue 40: a request meets a store that is away within 2 s. */
const BOUND_MS = 2000;

async function timed(url: string, init: RequestInit = {}) {
  const started = performance.now();
  const reply = await fetch(url, { ...init, headers: { ...KEYS, ...(init.headers as Record<string, string> | undefined) } });
  const body = (await reply.json()) as Record<string, unknown>;
  return { status: reply.status, body, ms: performance.now() - started, retryAfter: reply.headers.get('retry-after') };
}

const logs: string[] = [];
const post = (url: string, body: object) => timed(url, { method: 'POST', body: JSON.stringify(body) });

describe('the quick start with a store away (issue 40: fail fast, with a code, and recover)', async () => {
  const db = await ownDatabase('outage');
  let redis: OwnRedis;
  let pgGate: TcpProxy;
  let server: StartedServer;
  let base = '';
  beforeAll(async () => {
    if (!db) return;
    redis = await ownRedis();
    // PostgreSQL behind a gate the test can turn into a black hole (a database that stops answering).
    pgGate = await tcpProxy([Number(new URL(db.url).port || 5432)]);
    const url = new URL(db.url);
    url.port = String(pgGate.port);
    server = await start({ port: 0, write: (line) => void logs.push(line), databaseUrl: url.toString(), redisUrl: redis.url, redisPrefix: `svc-outage-${randomBytes(3).toString('hex')}:`, functionsDir: join(tmpdir(), 'none'), env: {} });
    base = server.url;
  });
  afterAll(async () => {
    if (!db) return;
    await server?.close(1000);
    await redis?.kill();
    await pgGate?.close();
    await db.drop();
  });

  it.skipIf(!db)('Redis killed: SMS, sign-up, login and captcha answer 11230 within 2 s, reads go on, /ready says kv; all back once Redis returns', async () => {
    const created = await post(`${base}/1/classes/Note`, { text: 'kept' });
    expect(created.status).toBe(201);
    const signedUp = await post(`${base}/1/users`, { username: 'ann', password: 'pw-123456', email: 'ann@example.com' });
    expect(signedUp.body).toHaveProperty('sessionToken');
    expect((await timed(`${base}/ready`)).status).toBe(200);

    await redis.kill();
    for (const [what, reply] of [
      ['SMS code', await post(`${base}/1/requestSmsCode`, { mobilePhoneNumber: '13800138000' })],
      ['sign-up', await post(`${base}/1/users`, { username: 'bob', password: 'pw-123456', email: 'bob@example.com' })],
      ['login', await timed(`${base}/1/login?username=ann&password=pw-123456`)],
      ['captcha', await post(`${base}/1/requestCaptcha`, {})],
    ] as const) {
      expect({ what, status: reply.status, code: reply.body['code'] }).toEqual({ what, status: 424, code: 11230 });
      expect(reply.retryAfter).toBe('1');
      expect(reply.ms, what).toBeLessThan(BOUND_MS);
    }
    // Reads that need neither Redis nor a limit keep working.
    const read = await timed(`${base}/1/classes/Note/${String(created.body['objectId'])}`);
    expect(read.status).toBe(200);
    expect(read.body['text']).toBe('kept');
    const ready = await timed(`${base}/ready`);
    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({ status: 'unavailable', storage: true, kv: false, counters: false });
    expect(ready.ms).toBeLessThan(BOUND_MS + 500);

    await redis.start();
    const recovered = await until('ready after Redis returns', async () => (await timed(`${base}/ready`)).status === 200, 10_000);
    expect(recovered).toBeLessThan(5000);
    expect((await post(`${base}/1/requestSmsCode`, { mobilePhoneNumber: '13800138000' })).status).toBe(200);
    expect((await timed(`${base}/1/login?username=ann&password=pw-123456`)).status).toBe(200);
  });

  it.skipIf(!db)('PostgreSQL not answering: requests answer 11230 within 2 s, /ready says storage; all back once it answers', async () => {
    const created = await post(`${base}/1/classes/Note`, { text: 'before' });
    expect(created.status).toBe(201);
    pgGate.hold();
    const write = await post(`${base}/1/classes/Note`, { text: 'during' });
    expect({ status: write.status, code: write.body['code'] }).toEqual({ status: 424, code: 11230 });
    expect(write.ms).toBeLessThan(BOUND_MS + 500);
    const read = await timed(`${base}/1/classes/Note/${String(created.body['objectId'])}`);
    expect({ status: read.status, code: read.body['code'] }).toEqual({ status: 424, code: 11230 });
    expect(read.ms).toBeLessThan(BOUND_MS + 500);
    const ready = await timed(`${base}/ready`);
    expect(ready.body).toMatchObject({ status: 'unavailable', storage: false, kv: true, counters: true });

    pgGate.forward();
    await until('ready after PostgreSQL answers', async () => (await timed(`${base}/ready`)).status === 200, 10_000);
    expect((await post(`${base}/1/classes/Note`, { text: 'after' })).status).toBe(201);
  });
});
