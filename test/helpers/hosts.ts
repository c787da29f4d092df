import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import express from 'express';
import Fastify from 'fastify';
import { createNodeWebSocket } from '@hono/node-ws';
import { Hono } from 'hono';
import { svcbaseFastify } from '../../src/fastify.js';
import { toFetchHandler, toHonoUpgrade } from '../../src/fetch.js';
import { toNodeListener } from '../../src/node.js';
import type { Service } from '../../src/service.js';

/** A service mounted under `/api` in a real host on a loopback port, with the upgrade hook wired. */
export interface MountedHost {
  url: string;
  /** The host's node:http server. */
  server: Server;
  close(): Promise<void>;
}

/** Called with the host's node:http server before it accepts a connection (e.g. `applyServerLimits`). */
export type ServerSetup = (server: Server) => void;

/** `hono-ws`: Hono on @hono/node-server whose upgrades go through Hono's `upgradeWebSocket` (the fetch-style path), not node's upgrade event. */
export type HostName = 'node:http' | 'express' | 'fastify' | 'hono' | 'hono-ws';

const PREFIX = '/api';

function wireUpgrades(server: Server, service: Service): void {
  server.on('upgrade', (req, socket, head) => void service.handleUpgrade(req, socket, head, { prefix: PREFIX }));
}

async function listening(server: Server): Promise<string> {
  if (!server.listening) await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function closer(server: Server): () => Promise<void> {
  return async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
}

/** Each host, as docs/mounting.md mounts it. */
export const HOSTS: Record<HostName, (service: Service, setup?: ServerSetup) => Promise<MountedHost>> = {
  async 'node:http'(service, setup) {
    const server = createServer(toNodeListener(service, { prefix: PREFIX }));
    setup?.(server);
    wireUpgrades(server, service);
    server.listen(0, '127.0.0.1');
    return { url: await listening(server), server, close: closer(server) };
  },
  async express(service, setup) {
    const app = express();
    app.use(PREFIX, toNodeListener(service));
    const server = app.listen(0, '127.0.0.1');
    setup?.(server);
    wireUpgrades(server, service);
    return { url: await listening(server), server, close: closer(server) };
  },
  async fastify(service, setup) {
    const fastify = Fastify();
    setup?.(fastify.server);
    await fastify.register(svcbaseFastify, { service, prefix: PREFIX });
    wireUpgrades(fastify.server, service);
    const url = await fastify.listen({ port: 0, host: '127.0.0.1' });
    return { url, server: fastify.server, close: () => fastify.close() };
  },
  async hono(service, setup) {
    const handler = toFetchHandler(service, { prefix: PREFIX });
    const app = new Hono();
    app.all(`${PREFIX}/*`, (c) => handler(c.req.raw, c));
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server;
    setup?.(server);
    wireUpgrades(server, service);
    return { url: await listening(server), server, close: closer(server) };
  },
  async 'hono-ws'(service, setup) {
    const handler = toFetchHandler(service, { prefix: PREFIX });
    const app = new Hono();
    const { upgradeWebSocket, injectWebSocket } = createNodeWebSocket({ app });
    app.get(`${PREFIX}/*`, toHonoUpgrade(service, upgradeWebSocket, { prefix: PREFIX, clientAddress: () => '127.0.0.1' }));
    app.all(`${PREFIX}/*`, (c) => handler(c.req.raw, c));
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server;
    setup?.(server);
    injectWebSocket(server);
    return { url: await listening(server), server, close: closer(server) };
  },
};
