import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { svcbaseFastify } from '../../src/fastify.js';
import { toFetchHandler } from '../../src/fetch.js';
import { toNodeListener } from '../../src/node.js';
import type { Service } from '../../src/service.js';

/** A service mounted under `/api` in a real host on a loopback port, with the upgrade hook wired. */
export interface MountedHost {
  url: string;
  close(): Promise<void>;
}

export type HostName = 'node:http' | 'express' | 'fastify' | 'hono';

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
export const HOSTS: Record<HostName, (service: Service) => Promise<MountedHost>> = {
  async 'node:http'(service) {
    const server = createServer(toNodeListener(service, { prefix: PREFIX }));
    wireUpgrades(server, service);
    server.listen(0, '127.0.0.1');
    return { url: await listening(server), close: closer(server) };
  },
  async express(service) {
    const app = express();
    app.use(PREFIX, toNodeListener(service));
    const server = app.listen(0, '127.0.0.1');
    wireUpgrades(server, service);
    return { url: await listening(server), close: closer(server) };
  },
  async fastify(service) {
    const fastify = Fastify();
    await fastify.register(svcbaseFastify, { service, prefix: PREFIX });
    wireUpgrades(fastify.server, service);
    const url = await fastify.listen({ port: 0, host: '127.0.0.1' });
    return { url, close: () => fastify.close() };
  },
  async hono(service) {
    const handler = toFetchHandler(service, { prefix: PREFIX });
    const app = new Hono();
    app.all(`${PREFIX}/*`, (c) => handler(c.req.raw, c));
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server;
    wireUpgrades(server, service);
    return { url: await listening(server), close: closer(server) };
  },
};
