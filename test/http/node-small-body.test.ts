import { createServer } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Feature } from '../../src/http/types.js';
import { memoryStorage } from '../../src/memory.js';
import { toNodeListener } from '../../src/node.js';
import { createService } from '../../src/service.js';
import { TEST_APP, appHeaders } from '../helpers/server.js';

/**
 * The node host reads a small declared body whole before the service (http/host/node-request.ts,
 * SMALL_BODY_BYTES): each route's limit still applies, a stream route still gets chunks, and a
 * client that leaves mid-body reaches no route.
 */
let handled = 0;
const routes = (): Feature => ({
  name: 'bodies',
  routes: [
    { method: 'POST', path: '/1/tiny', auth: 'app', body: 'raw', bodyLimit: 10, handler: (ctx) => ((handled++), { body: { bytes: ctx.rawBody?.length ?? 0 } }) },
    { method: 'POST', path: '/1/echo', auth: 'app', body: 'raw', handler: (ctx) => ((handled++), { body: { bytes: ctx.rawBody?.length ?? 0 } }) },
    {
      method: 'POST',
      path: '/1/chunks',
      auth: 'app',
      body: 'stream',
      bodyLimit: 100,
      handler: async (ctx) => {
        handled++;
        let bytes = 0;
        for await (const chunk of ctx.bodyStream ?? []) bytes += chunk.length;
        return { body: { bytes } };
      },
    },
  ],
});
const service = createService({ storage: memoryStorage(), applications: [TEST_APP], features: [routes] });
const server = createServer(toNodeListener(service));
let url = '';
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await service.close();
});

const post = (path: string, body: string | Uint8Array) => fetch(`${url}${path}`, { method: 'POST', headers: appHeaders(), body });

describe('small bodies read by the node host', () => {
  it('passes the whole body, and still applies a route limit below the host threshold', async () => {
    expect(await (await post('/1/echo', 'x'.repeat(5000))).json()).toEqual({ bytes: 5000 });
    const refused = await post('/1/tiny', 'x'.repeat(11));
    expect(refused.status).toBe(413);
    expect(((await refused.json()) as { code: number }).code).toBe(11002);
  });

  it('gives a stream route its body as chunks within its limit', async () => {
    expect(await (await post('/1/chunks', 'y'.repeat(60))).json()).toEqual({ bytes: 60 });
    expect((await post('/1/chunks', 'y'.repeat(101))).status).toBe(413);
  });

  it('reaches no route when the client leaves mid-body, and keeps serving', async () => {
    const before = handled;
    const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    const headers = Object.entries(appHeaders()).map(([k, v]) => `${k}: ${v}\r\n`).join('');
    const arrived = new Promise<import('node:http').IncomingMessage>((resolve) => server.once('request', resolve));
    socket.write(`POST /1/echo HTTP/1.1\r\nhost: x\r\n${headers}content-length: 1000\r\n\r\n${'z'.repeat(10)}`);
    const req = await arrived;
    const closed = new Promise((resolve) => req.once('close', resolve));
    socket.destroy();
    await closed;
    expect(req.complete).toBe(false);
    expect(handled).toBe(before);
    expect(await (await post('/1/echo', 'ok')).json()).toEqual({ bytes: 2 });
  });
});
