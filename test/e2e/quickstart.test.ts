import { execFile, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { SERVER_LIMITS } from '../../src/node.js';
import { banner, start } from '../../src/cli/serve.js';
import { devApplication } from '../../src/cli/dev-application.js';
import { PG_URL, type TestSchema, createTestSchema, postgresAvailable } from '../postgres/pg-test-db.js';
import { REDIS_URL, connectTestRedis, deleteKeys, runPrefix } from '../redis/redis-env.js';
import { connect, opened } from '../realtime/harness.js';
import { WebSocket } from 'ws';
import { openAiCompatibleProvider } from '../../src/ai/index.js';
import { FAKE_API_KEY, startFakeOpenAi } from '../ai/fake-openai.js';
import { createECDH } from 'node:crypto';
import { startFakeWechatPlatform } from '../../src/testing/fake-wechat-platform.js';
import { callbackSignature } from '../../src/wechat/callback-signature.js';
import { redisKvStore } from '../../src/redis/redis-kv-store.js';
import { KV_NO_EXPIRY } from '../../src/kv/port.js';

const exec = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'svcbase-quickstart-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('quick start (svcbase serve, src/cli/serve.ts)', () => {
  it('answers the four curl lines it prints', async () => {
    const server = await start({ port: 0, dbFile: join(dir, 'curl.db'), quiet: true });
    try {
      const lines = banner(server.url, server.dbFile).split('\n').filter((l) => l.startsWith('curl '));
      expect(lines).toHaveLength(4);
      const outputs = [];
      for (const line of lines) outputs.push(JSON.parse((await exec('bash', ['-c', line])).stdout));
      expect(outputs[0]).toMatchObject({ objectId: expect.any(String), createdAt: expect.any(String) });
      expect(outputs[1].results).toEqual([expect.objectContaining({ objectId: outputs[0].objectId, score: 1337, playerName: 'Sean' })]);
      expect(outputs[2]).toEqual({ smsId: expect.any(Number) });
      expect(outputs[3]).toEqual({ result: 'hello svcbase' });
      const plain = banner(server.url, server.dbFile).split('\n').find((l) => l.startsWith('A cloud function'))!;
      expect(await (await fetch(plain.slice(plain.indexOf('http')))).text()).toBe('hello svcbase');
      // functions/greet.js was deployed at start-up into the sandbox, and reads the table the first curl line wrote.
      expect(server.deployed).toEqual(['greet']);
      const deployedLine = banner(server.url, server.dbFile, server.deployed).split('\n').find((l) => l.startsWith('Deployed from'))!;
      expect(await (await fetch(`${deployedLine.slice(deployedLine.indexOf('http'))}?name=you`)).text()).toBe('hello you, the best score is 1337');
      // Realtime is on: a subscriber hears the next write.
      const app = devApplication();
      const headers = { 'X-Svc-Application-Id': app.applicationId, 'X-Svc-REST-API-Key': app.restApiKey };
      const client = opened(await connect(`${server.url.replace(/^http/, 'ws')}/1/realtime`, headers));
      expect((await client.json()).op).toBe('connected');
      client.send({ op: 'subscribe', id: 'g', action: 'updateTable', tableName: 'GameScore' });
      expect(await client.json()).toMatchObject({ op: 'subscribed', id: 'g' });
      await exec('bash', ['-c', lines[0]!]);
      expect(await client.json()).toMatchObject({ id: 'g', data: expect.objectContaining({ score: 1337 }) });
      client.ws.terminate();
    } finally {
      await server.close();
    }
  });

  it('serves AI chat at the printed URL once a provider is given (SVC_AI_*), and answers 11190 without one', async () => {
    const fake = await startFakeOpenAi();
    const configured = await start({ port: 0, dbFile: join(dir, 'ai.db'), quiet: true, ai: { provider: openAiCompatibleProvider({ baseUrl: `${fake.url}/v1`, apiKey: FAKE_API_KEY }), model: 'dev-model' } });
    const bare = await start({ port: 0, dbFile: join(dir, 'ai-bare.db'), quiet: true });
    try {
      const line = banner(configured.url, configured.dbFile).split('\n').find((l) => l.startsWith('AI chat'))!;
      const ws = new WebSocket(line.slice(line.indexOf('ws://')).split(' ')[0]!);
      await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
      const pieces: string[] = [];
      const ended = new Promise<void>((resolve) => ws.on('message', (data) => {
        const content = JSON.parse(String(data)).choices[0].delta.content as string;
        if (content === '') resolve();
        else pieces.push(content);
      }));
      ws.send(JSON.stringify({ messages: [{ role: 'user', content: 'hi' }], session: 'quick' }));
      await ended;
      expect(pieces.join('')).toBe('echo: hi');
      expect(fake.completions[0]!.body.model).toBe('dev-model');
      ws.terminate();
      const refused = new WebSocket(`${bare.url.replace('http', 'ws')}/1/ai/${devApplication().secretKey}`);
      const status = await new Promise<number>((resolve) => refused.once('unexpected-response', (_req, res) => resolve(res.statusCode!)).once('error', () => {}));
      expect(status).toBe(403);
    } finally {
      await configured.close();
      await bare.close();
      await fake.close();
    }
  });

  it('fix 39.2: the environment turns on owner notifications, virtual payment, the message token, client push and client refund', async () => {
    const platform = await startFakeWechatPlatform();
    const vapidKeys = createECDH('prime256v1');
    vapidKeys.generateKeys();
    const wechat = { SVC_WECHAT_APPID: platform.appId, SVC_WECHAT_SECRET: platform.secret, SVC_WECHAT_API_BASE: platform.url, SVC_WECHAT_MCHID: platform.mchId, SVC_WECHAT_PAY_KEY: platform.payKey, SVC_WECHAT_PAY_API_BASE: platform.url };
    const env = {
      ...wechat,
      SVC_WECHAT_OA_APPID: platform.appId,
      SVC_WECHAT_OA_SECRET: platform.secret,
      SVC_WECHAT_VP_OFFER_ID: platform.offerId,
      SVC_WECHAT_VP_APP_KEY: platform.virtualPayAppKey,
      SVC_WECHAT_MESSAGE_TOKEN: 'quick-token',
      SVC_WECHAT_PAY_CLIENT_REFUND: '1',
      SVC_PUSH_CLIENT: 'true',
      SVC_VAPID_PUBLIC_KEY: vapidKeys.getPublicKey().toString('base64url'),
      SVC_VAPID_PRIVATE_KEY: vapidKeys.getPrivateKey().toString('base64url'),
    };
    const on = await start({ port: 0, dbFile: join(dir, 'wechat-on.db'), quiet: true, env, functionsDir: join(dir, 'none') });
    // Only the mini program and Pay: each of the five answers as it did before these variables.
    const off = await start({ port: 0, dbFile: join(dir, 'wechat-off.db'), quiet: true, env: { ...wechat, SVC_VAPID_PUBLIC_KEY: env.SVC_VAPID_PUBLIC_KEY, SVC_VAPID_PRIVATE_KEY: env.SVC_VAPID_PRIVATE_KEY }, functionsDir: join(dir, 'none') });
    try {
      const app = devApplication();
      const call = async (base: string, method: string, path: string, body?: unknown) => {
        const reply = await fetch(`${base}${path}`, { method, headers: { 'X-Svc-Application-Id': app.applicationId, 'X-Svc-REST-API-Key': app.restApiKey, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
        return { status: reply.status, body: (await reply.json()) as Record<string, unknown> };
      };
      const sk = ((await call(on.url, 'POST', `/1/wechatAppv1/${platform.loginCode('openid-q')}`)).body as { sk: string }).sk;
      platform.balances.set('openid-q', 9);
      const timestamp = String(Math.floor(Date.now() / 1000));
      const verify = (base: string) => fetch(`${base}/1/wechatApp/callback/${app.applicationId}?${new URLSearchParams({ signature: callbackSignature('quick-token', timestamp, 'n-q'), timestamp, nonce: 'n-q', echostr: 'hello-q' })}`);
      const five = {
        notifyMsg: (base: string) => call(base, 'POST', '/1/wechatApp/notifyMsg', { touser: 'owner-openid', template_id: 'tpl', url: 'https://example.com', data: { first: { value: 'hi' } } }),
        virtualPay: (base: string) => call(base, 'POST', '/1/wxvp/queryUserBalance', { openid: 'openid-q', sk, env: 0 }),
        push: (base: string) => call(base, 'POST', '/1/push', { data: { alert: 'hello' } }),
        refund: (base: string) => call(base, 'POST', '/1/pay/refund', { order_no: 'no-such-order', refund_fee: 1, desc: 'x' }),
      };
      expect(await five.notifyMsg(on.url)).toEqual({ status: 200, body: { msg: 'ok' } });
      expect((await five.virtualPay(on.url)).body).toMatchObject({ errcode: 0, balance: 9 });
      expect((await five.push(on.url)).body).toMatchObject({ result: true, pushStatusId: expect.any(String) });
      // The REST key reaches the order lookup: 10002, an unknown order, instead of 11006.
      expect((await five.refund(on.url)).body.code).toBe(10002);
      expect(await (await verify(on.url)).text()).toBe('hello-q');
      expect((await five.notifyMsg(off.url)).body.code).toBe(11205);
      expect((await five.virtualPay(off.url)).body.code).toBe(11205);
      expect((await five.push(off.url)).body.code).toBe(11006);
      expect((await five.refund(off.url)).body.code).toBe(11006);
      expect((await verify(off.url)).status).not.toBe(200);
    } finally {
      await on.close();
      await off.close();
      await platform.close();
    }
  });

  it('keeps every acknowledged write across a restart of the server', async () => {
    const dbFile = join(dir, 'restart.db');
    const app = devApplication();
    const headers = { 'X-Svc-Application-Id': app.applicationId, 'X-Svc-REST-API-Key': app.restApiKey, 'content-type': 'application/json' };
    const first = await start({ port: 0, dbFile, quiet: true });
    const acknowledged: string[] = [];
    try {
      const replies = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          fetch(`${first.url}/1/classes/Durable`, { method: 'POST', headers, body: JSON.stringify({ n: i }) }).then(async (r) => ({ status: r.status, body: (await r.json()) as { objectId: string } })),
        ),
      );
      for (const reply of replies) if (reply.status === 201) acknowledged.push(reply.body.objectId);
      const counter = await fetch(`${first.url}/1/classes/Durable`, { method: 'POST', headers, body: '{"hits":0}' }).then((r) => r.json() as Promise<{ objectId: string }>);
      await Promise.all(
        Array.from({ length: 50 }, () =>
          fetch(`${first.url}/1/classes/Durable/${counter.objectId}`, { method: 'PUT', headers, body: '{"hits":{"__op":"Increment","amount":1}}' }),
        ),
      );
      acknowledged.push(counter.objectId);
    } finally {
      await first.close();
    }
    expect(acknowledged).toHaveLength(101);
    const second = await start({ port: 0, dbFile, quiet: true });
    try {
      const list = (await fetch(`${second.url}/1/classes/Durable?limit=1000&count=1`, { headers }).then((r) => r.json())) as {
        results: Array<{ objectId: string; hits?: number }>;
        count: number;
      };
      expect(list.count).toBe(101);
      expect(new Set(list.results.map((r) => r.objectId))).toEqual(new Set(acknowledged));
      expect(list.results.find((r) => r.objectId === acknowledged.at(-1))?.hits).toBe(50);
    } finally {
      await second.close();
    }
  });

  it('fix 11.12: a busy port prints one clear line and exits 1, no error stack', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = String((blocker.address() as { port: number }).port);
    try {
      const child = spawn(process.execPath, ['bin/svcbase.mjs', 'serve'], {
        env: { ...process.env, HOST: '127.0.0.1', PORT: port, SVC_DB: join(dir, 'busy.db') },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (chunk) => (output += chunk));
      child.stderr.on('data', (chunk) => (output += chunk));
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      expect(code).toBe(1);
      expect(output).toBe(`svcbase: cannot listen on 127.0.0.1:${port}: the port is in use (set PORT to a free port)\n`);
    } finally {
      blocker.close();
    }
  });

  it('fix 11.12: HOST is honoured', async () => {
    const before = process.env.HOST;
    process.env.HOST = '127.0.0.2';
    try {
      const server = await start({ port: 0, dbFile: join(dir, 'host.db'), quiet: true });
      try {
        expect(server.url).toMatch(/^http:\/\/127\.0\.0\.2:\d+$/);
        expect((await fetch(`${server.url}/1/timestamp`, { headers: keyHeaders() })).status).toBe(200);
      } finally {
        await server.close();
      }
    } finally {
      if (before === undefined) delete process.env.HOST;
      else process.env.HOST = before;
    }
  });

  it('fix 11.12: one info line per request with method, path, status, ms and request id (echoed)', async () => {
    const lines: string[] = [];
    const server = await start({ port: 0, dbFile: join(dir, 'log.db'), write: (line) => lines.push(line) });
    try {
      const kept = await fetch(`${server.url}/1/classes/Logged?where=%7B%7D`, { headers: { ...keyHeaders(), 'x-request-id': 'client-id-42' } });
      expect(kept.headers.get('x-request-id')).toBe('client-id-42');
      const replaced = await fetch(`${server.url}/1/nope`, { headers: { ...keyHeaders(), 'x-request-id': 'has spaces & more' } });
      const generated = replaced.headers.get('x-request-id');
      expect(generated).toMatch(/^[0-9a-f-]{36}$/);
      await new Promise((resolve) => setImmediate(resolve));
      // The start-up deployment of ./functions goes through the service too (a PUT line): only the GETs here.
      const requestLines = lines.filter((line) => line.startsWith('[svcbase] INFO GET '));
      expect(requestLines).toHaveLength(2);
      expect(requestLines[0]).toMatch(/^\[svcbase\] INFO GET \/1\/classes\/Logged 200 \d+ms \{"requestId":"client-id-42"\}$/);
      expect(requestLines[1]).toMatch(new RegExp(`^\\[svcbase\\] INFO GET /1/nope 404 \\d+ms \\{"requestId":"${generated}"\\}$`));
    } finally {
      await server.close();
    }
  });

  it('D11: the quick-start server closes idle and slow sockets and caps connections', async () => {
    const server = await start({ port: 0, dbFile: join(dir, 'limits.db'), quiet: true });
    try {
      expect(server.server.timeout).toBe(SERVER_LIMITS.idleSocketMs);
      expect(server.server.headersTimeout).toBe(SERVER_LIMITS.headersTimeoutMs);
      expect(server.server.requestTimeout).toBe(SERVER_LIMITS.requestTimeoutMs);
      expect(server.server.keepAliveTimeout).toBe(SERVER_LIMITS.keepAliveTimeoutMs);
      // The connection cap, and every bound to the second, are enforced per socket: test/e2e/server-limits.test.ts.
      // Finite and ordered: a silent socket is dropped, a request head cannot outlast the request.
      expect(SERVER_LIMITS.idleSocketMs).toBeGreaterThan(0);
      expect(SERVER_LIMITS.headersTimeoutMs).toBeLessThanOrEqual(SERVER_LIMITS.requestTimeoutMs);
      expect(SERVER_LIMITS.keepAliveTimeoutMs).toBeLessThan(SERVER_LIMITS.headersTimeoutMs);
    } finally {
      await server.close();
    }
  });
});

function keyHeaders(): Record<string, string> {
  const app = devApplication();
  return { 'X-Svc-Application-Id': app.applicationId, 'X-Svc-REST-API-Key': app.restApiKey };
}

/**
 * The quick start on PostgreSQL + Redis (`SVC_DATABASE_URL`, `SVC_REDIS_URL`): the printed curl lines
 * answer, and two instances on the same database and Redis share tables and limits. Own schema and
 * key prefix, dropped after; skipped loudly when either server is unreachable outside CI.
 */
const pgUp = await postgresAvailable('quickstart (PostgreSQL mode)');
const redis = await connectTestRedis('quickstart (Redis mode)');
describe.skipIf(!pgUp || !redis)('quick start on PostgreSQL + Redis', () => {
  let schema: TestSchema;
  const prefix = runPrefix('quickstart');
  afterAll(async () => {
    await schema?.drop();
    if (redis) {
      await deleteKeys(redis, prefix);
      redis.disconnect();
    }
  });

  it('answers its curl lines, and two instances share tables and SMS limits', async () => {
    schema = await createTestSchema('svc_quick');
    const options = { port: 0, quiet: true, databaseUrl: `${PG_URL}?search_path=${schema.name}`, redisUrl: REDIS_URL, redisPrefix: prefix };
    const one = await start(options);
    const two = await start(options);
    try {
      expect(banner(one.url, one.dbFile)).toContain('(PostgreSQL postgres:');
      const lines = banner(one.url, one.dbFile).split('\n').filter((l) => l.startsWith('curl '));
      const outputs = [];
      for (const line of lines) outputs.push(JSON.parse((await exec('bash', ['-c', line])).stdout));
      expect(outputs[0]).toMatchObject({ objectId: expect.any(String) });
      expect(outputs[1].results).toEqual([expect.objectContaining({ objectId: outputs[0].objectId, score: 1337 })]);
      expect(outputs[2]).toEqual({ smsId: expect.any(Number) });
      const app = devApplication();
      const headers = { 'X-Svc-Application-Id': app.applicationId, 'X-Svc-REST-API-Key': app.restApiKey, 'content-type': 'application/json' };
      // The record written through one instance is read through the other.
      const got = await fetch(`${two.url}/1/classes/GameScore/${outputs[0].objectId}`, { headers }).then((r) => r.json());
      expect(got).toMatchObject({ score: 1337, playerName: 'Sean' });
      // The number just got a code through `one`: the per-minute limit (in Redis) refuses it on `two`.
      const again = await fetch(`${two.url}/1/requestSmsCode`, { method: 'POST', headers, body: '{"mobilePhoneNumber":"13800138000"}' });
      expect(again.status).not.toBe(200);
      expect(((await again.json()) as { code: number }).code).toEqual(expect.any(Number));
      expect((await redis!.keys(`${prefix}*`)).length).toBeGreaterThan(0);
      // Realtime: a subscriber on `two` hears a write made through `one` (Redis pub/sub), once.
      const client = opened(await connect(`${two.url.replace(/^http/, 'ws')}/1/realtime`, headers));
      expect((await client.json()).op).toBe('connected');
      client.send({ op: 'subscribe', id: 's', action: 'updateTable', tableName: 'GameScore' });
      expect(await client.json()).toMatchObject({ op: 'subscribed', id: 's' });
      const made = await fetch(`${one.url}/1/classes/GameScore`, { method: 'POST', headers, body: '{"score":7}' }).then((r) => r.json());
      expect(await client.json()).toMatchObject({ id: 's', objectId: (made as { objectId: string }).objectId });
      client.ws.terminate();
    } finally {
      await one.close();
      await two.close();
    }
  });
});

/**
 * fix 39.3: deployments sharing one Redis. `SVC_REDIS_PREFIX` separates them, the application id is
 * in every key, and keys written before (without the id) stay readable.
 */
const keysRedis = await connectTestRedis('quickstart (Redis keys)');
describe.skipIf(!keysRedis)('quick start: Redis keys (SVC_REDIS_PREFIX, the application id in every key)', () => {
  const prefixes = [runPrefix('quick-keys-a'), runPrefix('quick-keys-b')] as const;
  afterAll(async () => {
    for (const prefix of prefixes) await deleteKeys(keysRedis!, prefix);
    keysRedis?.disconnect();
  });

  it('keeps two deployments on one Redis apart, and carries keys written without the application id', async () => {
    // What an earlier version left under the first prefix: the SMS id sequence at 41.
    const legacy = redisKvStore({ client: keysRedis!, prefix: `${prefixes[0]}kv:` });
    await legacy.increment('sms:seq', 41, KV_NO_EXPIRY, Date.now());
    const envOf = (prefix: string, db: string) => ({ SVC_DB: join(dir, db), SVC_REDIS_URL: REDIS_URL, SVC_REDIS_PREFIX: prefix });
    const one = await start({ port: 0, quiet: true, env: envOf(prefixes[0], 'keys-a.db'), functionsDir: join(dir, 'none') });
    const two = await start({ port: 0, quiet: true, env: envOf(prefixes[1], 'keys-b.db'), functionsDir: join(dir, 'none') });
    try {
      const headers = { ...keyHeaders(), 'content-type': 'application/json' };
      const ask = (base: string) => fetch(`${base}/1/requestSmsCode`, { method: 'POST', headers, body: '{"mobilePhoneNumber":"13900139000"}' }).then(async (r) => ({ status: r.status, body: (await r.json()) as { smsId?: number } }));
      // The same number on both: the per-minute limit of one is not the other's.
      expect(await ask(one.url)).toEqual({ status: 200, body: { smsId: 42 } });
      expect(await ask(two.url)).toEqual({ status: 200, body: { smsId: 1 } });
      expect((await ask(one.url)).status).not.toBe(200);
      const app = encodeURIComponent(devApplication().applicationId);
      for (const prefix of prefixes) {
        const keys = await keysRedis!.keys(`${prefix}*`);
        expect(keys.length).toBeGreaterThan(0);
        // Every key the service wrote carries the application id; only the old one does not.
        expect(keys.filter((key) => !key.startsWith(`${prefix}${app}:`))).toEqual(prefix === prefixes[0] ? [`${prefix}kv:sms:seq`] : []);
      }
      expect(await keysRedis!.keys('svc:*')).not.toContainEqual(expect.stringContaining('13900139000'));
    } finally {
      await one.close();
      await two.close();
    }
  });
});
