import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeWebSocket } from '@hono/node-ws';
import { Hono } from 'hono';
import { WebSocket } from 'ws';
import { toHonoUpgrade } from '../../src/fetch.js';
import type { FeatureSocket } from '../../src/features/sockets.js';
import { svcError } from '../../src/core/errors.js';
import { memoryStorage } from '../../src/memory.js';
import { type FeatureFactory, type Service, createService } from '../../src/service.js';
import { HOSTS, type HostName, type MountedHost } from '../helpers/hosts.js';
import { TEST_APP, appHeaders } from '../helpers/server.js';

/** A test feature: echoes every text message over WebSocket, after greeting with the caller's application. */
const echoFeature: FeatureFactory = () => {
  const open = new Set<FeatureSocket>();
  return {
    name: 'test-echo',
    routes: [],
    upgrades: [
      {
        path: '/1/test/echo/:room',
        auth: 'app',
        handler: async (ctx) => {
          if (ctx.params.room === 'closed') throw svcError('featureDisabled', 'room closed');
          const socket = await ctx.accept({ maxPayload: 64 * 1024 });
          if (!socket) return;
          open.add(socket);
          socket.onClose(() => open.delete(socket));
          socket.send(JSON.stringify({ app: ctx.app?.applicationId, room: ctx.params.room, client: ctx.remoteAddress }));
          socket.onMessage((message) => socket.send(typeof message === 'string' ? message : `binary ${message.byteLength}`));
        },
      },
    ],
    close: () => {
      for (const socket of open) socket.terminate();
    },
  };
};

interface Opened {
  ws?: WebSocket;
  /** Resolves with the next message (messages are queued from the start, so none is missed). */
  next?: () => Promise<string>;
  status?: number;
  body?: { code?: number; error?: unknown };
}

function open(url: string, headers: Record<string, string>): Promise<Opened> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    const queue: string[] = [];
    const waiters: Array<(message: string) => void> = [];
    ws.on('message', (data) => {
      const waiter = waiters.shift();
      if (waiter) waiter(String(data));
      else queue.push(String(data));
    });
    const next = () => (queue.length > 0 ? Promise.resolve(queue.shift()!) : new Promise<string>((r) => waiters.push(r)));
    ws.once('open', () => resolve({ ws, next }));
    ws.once('unexpected-response', (_req, res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        resolve({ status: res.statusCode, ...(text ? { body: JSON.parse(text) } : {}) });
      });
    });
    ws.once('error', reject);
  });
}

describe.each(Object.keys(HOSTS) as HostName[])('WebSocket upgrade hook in %s', (hostName) => {
  let service: Service;
  let host: MountedHost;
  let wsUrl: string;
  beforeAll(async () => {
    service = createService({ storage: memoryStorage(), applications: [TEST_APP], captcha: false, features: [echoFeature] });
    host = await HOSTS[hostName](service);
    wsUrl = host.url.replace(/^http/, 'ws');
  });
  afterAll(async () => {
    await service.close();
    await host.close();
  });
  // @hono/node-ws writes a refused upgrade's status with an empty body (the Response toHonoUpgrade
  // returns carries the coded body: checked below); the other hosts write svcbase's own answer.
  const codedBody = hostName !== 'hono-ws';

  it('authenticates like a route and echoes over the socket', async () => {
    const { ws, next } = await open(`${wsUrl}/api/1/test/echo/lobby`, appHeaders());
    expect(JSON.parse(await next!())).toEqual({ app: TEST_APP.applicationId, room: 'lobby', client: '127.0.0.1' });
    ws!.send('ping');
    expect(await next!()).toBe('ping');
    ws!.terminate();
  });

  it('an unknown path gets a clean 404 with code 11001', async () => {
    const answer = await open(`${wsUrl}/api/1/test/nowhere`, appHeaders());
    expect(answer.status).toBe(404);
    if (codedBody) expect(answer.body?.code).toBe(11001);
  });

  it('a path outside the mount prefix gets 404', async () => {
    const answer = await open(`${wsUrl}/1/test/echo/lobby`, appHeaders());
    expect(answer.status).toBe(404);
  });

  it('missing credentials get the routes\' 401', async () => {
    const answer = await open(`${wsUrl}/api/1/test/echo/lobby`, {});
    expect(answer.status).toBe(401);
    if (codedBody) expect(answer.body).toEqual({ error: 'unauthorized' });
  });

  it('a coded error thrown before the handshake answers in HTTP', async () => {
    const answer = await open(`${wsUrl}/api/1/test/echo/closed`, appHeaders());
    expect(answer.status).toBe(403);
    if (codedBody) expect(answer.body?.code).toBe(11007);
  });
});

describe('toHonoUpgrade (the fetch-style upgrade path)', () => {
  it('answers a refused upgrade with the coded Response, and passes a request without Upgrade to the next handler', async () => {
    const service = createService({ storage: memoryStorage(), applications: [TEST_APP], captcha: false, features: [echoFeature] });
    const app = new Hono();
    const { upgradeWebSocket } = createNodeWebSocket({ app });
    app.get('/api/*', toHonoUpgrade(service, upgradeWebSocket, { prefix: '/api' }));
    app.get('/api/*', (c) => c.text('next'));
    try {
      const upgrade = { upgrade: 'websocket', connection: 'Upgrade', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==' };
      const closed = await app.request('/api/1/test/echo/closed', { headers: { ...upgrade, ...appHeaders() } });
      expect(closed.status).toBe(403);
      expect(((await closed.json()) as { code: number }).code).toBe(11007);
      const anonymous = await app.request('/api/1/test/echo/lobby', { headers: upgrade });
      expect([anonymous.status, await anonymous.json()]).toEqual([401, { error: 'unauthorized' }]);
      const unknown = await app.request('/api/1/test/nowhere', { headers: { ...upgrade, ...appHeaders() } });
      expect([unknown.status, ((await unknown.json()) as { code: number }).code]).toEqual([404, 11001]);
      expect(await (await app.request('/api/1/test/echo/lobby', { headers: appHeaders() })).text()).toBe('next');
    } finally {
      await service.close();
    }
  });
});

describe('upgrade hook failures', () => {
  it('a bad trustProxy setting answers 500 on the socket and is logged, never an unhandled rejection', async () => {
    const errors: string[] = [];
    const service = createService({
      storage: memoryStorage(),
      applications: [TEST_APP],
      captcha: false,
      features: [echoFeature],
      logger: { debug() {}, info() {}, warn() {}, error: (message) => errors.push(message) },
    });
    const server = createServer((_req, res) => res.end());
    server.on('upgrade', (req, socket, head) => {
      void service.handleUpgrade(req, socket, head, { trustProxy: ['not-an-address'] });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const answer = await open(`ws://127.0.0.1:${(server.address() as AddressInfo).port}/1/test/echo/lobby`, appHeaders());
      expect(answer.status).toBe(500);
      expect(errors).toEqual(['internal error']);
    } finally {
      await service.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
