import { mkdtempSync, rmSync } from 'node:fs';
import { connect as connectTcp } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { start as startExpress } from '../../examples/express/server.js';
import { start as startHono } from '../../examples/hono/server.js';
import { start as startQuick } from '../../src/cli/serve.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-graceful-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A request whose body is sent in two halves, so it is in flight while the server closes. */
function halfSent(url: string, path: string, headers: Record<string, string>) {
  const { hostname, port } = new URL(url);
  const body = JSON.stringify({ note: 'sent across a shutdown' });
  const socket = connectTcp(Number(port), hostname);
  let reply = '';
  socket.on('data', (chunk) => (reply += chunk.toString('utf8')));
  const done = new Promise<string>((resolve) => socket.on('close', () => resolve(reply)));
  const head = [`POST ${path} HTTP/1.1`, `Host: ${hostname}:${port}`, 'Content-Type: application/json', `Content-Length: ${Buffer.byteLength(body)}`, 'Connection: close', ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), '', ''].join('\r\n');
  const started = new Promise<void>((resolve) => socket.once('connect', () => socket.write(head + body.slice(0, 10), () => resolve())));
  return { started, finish: () => socket.end(body.slice(10)), done };
}

function refused(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connectTcp(Number(port), hostname);
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

const KEYS = { 'X-Svc-Application-Id': 'dev-app-id', 'X-Svc-REST-API-Key': 'dev-rest-key' };

describe('graceful shutdown of the examples', () => {
  it.each([
    ['quick start', async () => startQuick({ port: 0, dbFile: join(dir, 'quick.db'), quiet: true }), ''],
    ['express', async () => startExpress(0), '/api'],
    ['hono', async () => startHono(0), '/api'],
  ] as const)('%s: stops accepting, finishes the request in flight, then closes', async (_name, start, prefix) => {
    const server = await start();
    // Closing drops connections that have not started a request yet: wait until this one has.
    const received = new Promise((resolve) => server.server.once('request', resolve));
    const request = halfSent(server.url, `${prefix}/1/classes/Note`, KEYS);
    await request.started;
    await received;
    const closing = server.close();
    // New connections are refused while the request in flight still gets its answer.
    await expect.poll(() => refused(server.url), { timeout: 5000, interval: 20 }).toBe(true);
    request.finish();
    expect(await request.done).toMatch(/^HTTP\/1\.1 201 /);
    await closing;
  });
});
