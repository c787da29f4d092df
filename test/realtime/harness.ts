import { afterEach, beforeEach } from 'vitest';
import { WebSocket, type ClientOptions } from 'ws';
import type { ApplicationConfig } from '../../src/app/application.js';
import type { ServiceOptions } from '../../src/service.js';
import { TEST_APP, type TestServer, startTestServer } from '../helpers/server.js';
import { FAST_SCRYPT } from '../users/users-server.js';

/** The test application with realtime switched on. */
export const RT_APP: ApplicationConfig = { ...TEST_APP, settings: { features: { realtime: true } } };

export interface RealtimeServer extends TestServer {
  wsUrl: string;
}

/** A real node:http server with the service's upgrade hook wired, users on (fast hashing), captcha off. */
export async function startRealtimeServer(options: Partial<ServiceOptions> = {}): Promise<RealtimeServer> {
  const server = await startTestServer({ captcha: false, users: { scrypt: FAST_SCRYPT }, applications: [RT_APP], ...options });
  server.server.on('upgrade', (req, socket, head) => void server.service.handleUpgrade(req, socket, head));
  return {
    ...server,
    wsUrl: server.url.replace(/^http/, 'ws'),
    // The service first: it closes the upgraded sockets, which the HTTP server would wait for.
    async close() {
      await server.service.close();
      await server.close();
    },
  };
}

export interface Client {
  ws: WebSocket;
  /** The next text message (queued from the start, so none is missed). */
  next(): Promise<string>;
  /** The next message parsed as JSON. */
  json<T = any>(): Promise<T>;
  /** Sends a JSON value (or raw text). */
  send(message: unknown): void;
  /** Resolves with the close code and reason once the socket closed. */
  closed: Promise<{ code: number; reason: string }>;
  /** Messages received but not read yet. */
  pending(): number;
}

export interface Refusal {
  status: number;
  body: any;
}

/** Opens a WebSocket; resolves with the client, or with the HTTP refusal of the upgrade. */
export function connect(url: string, headers: Record<string, string> = {}, options: ClientOptions = {}): Promise<Client | Refusal> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers, ...options });
    const queue: string[] = [];
    const waiters: Array<(message: string) => void> = [];
    ws.on('message', (data) => {
      const text = String(data);
      const waiter = waiters.shift();
      if (waiter) waiter(text);
      else queue.push(text);
    });
    const closed = new Promise<{ code: number; reason: string }>((r) => ws.on('close', (code, reason) => r({ code, reason: String(reason) })));
    const next = () => (queue.length > 0 ? Promise.resolve(queue.shift()!) : new Promise<string>((r) => waiters.push(r)));
    ws.once('open', () =>
      resolve({
        ws,
        next,
        json: async () => JSON.parse(await next()),
        send: (message) => ws.send(typeof message === 'string' ? message : JSON.stringify(message)),
        closed,
        pending: () => queue.length,
      }),
    );
    ws.once('unexpected-response', (_req, res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString() || 'null') }));
    });
    ws.once('error', (error) => {
      if (ws.readyState !== ws.CLOSED) reject(error);
    });
  });
}

/** Narrows a connect result to an open client (fails the test otherwise). */
export function opened(result: Client | Refusal): Client {
  if (!('ws' in result)) throw new Error(`expected an open socket, got HTTP ${result.status} ${JSON.stringify(result.body)}`);
  return result;
}

/** The REST headers of RT_APP (or the master key). */
export function rtHeaders(extra: Record<string, string> = {}): Record<string, string> {
  return { 'X-Svc-Application-Id': RT_APP.applicationId, 'X-Svc-REST-API-Key': RT_APP.restApiKey, ...extra };
}

/** A manual ticker: `tick()` runs every registered heartbeat once. */
export function manualTicker() {
  const ticks = new Set<() => void>();
  return {
    every(_ms: number, tick: () => void) {
      ticks.add(tick);
      return () => void ticks.delete(tick);
    },
    tick() {
      for (const tick of ticks) tick();
    },
  };
}

/** Connects to the JSON protocol and reads the `connected` greeting. */
export async function jsonClient(server: RealtimeServer, headers: Record<string, string> = rtHeaders(), options: ClientOptions = {}): Promise<Client> {
  const client = opened(await connect(`${server.wsUrl}/1/realtime`, headers, options));
  const hello = await client.json();
  if (hello.op !== 'connected') throw new Error(`expected connected, got ${JSON.stringify(hello)}`);
  return client;
}

/** Subscribes and waits for the acknowledgement. */
export async function subscribe(client: Client, message: Record<string, unknown>): Promise<void> {
  client.send({ op: 'subscribe', ...message });
  const ack = await client.json();
  if (ack.op !== 'subscribed' || ack.id !== String(message.id)) throw new Error(`expected subscribed ${String(message.id)}, got ${JSON.stringify(ack)}`);
}

/**
 * A realtime server started before each test of the calling `describe` and closed after it, and the
 * clients a test pushes to `clients`, terminated first.
 */
export function realtimeServerEachTest(options: Partial<ServiceOptions> = {}): { readonly server: RealtimeServer; readonly clients: Client[] } {
  let current: RealtimeServer | undefined;
  const clients: Client[] = [];
  beforeEach(async () => {
    current = await startRealtimeServer(options);
  });
  afterEach(async () => {
    for (const c of clients.splice(0)) c.ws.terminate();
    await current?.close();
  });
  return {
    get server() {
      if (!current) throw new Error('realtimeServerEachTest: no test is running');
      return current;
    },
    clients,
  };
}
