/**
 * The soak group's hostile loads (issue 36), each running until `stop()`: allocation bombs in
 * deployed functions, a function burst from one application, a where-subscription flood over the
 * realtime WebSocket with writes that make every where work, and idle, slowloris and idle keep-alive
 * sockets. Each counts what the server answered; the socket loads also record how long the server
 * let each socket live, which is what the socket limits bound.
 */
import { type Socket, connect } from 'node:net';
import { performance } from 'node:perf_hooks';
import { WebSocket } from 'ws';

export const HOSTILE_APP = { applicationId: 'dev-app-id', restApiKey: 'dev-rest-key', masterKey: 'dev-master-key' } as const;
const REST = { 'X-Svc-Application-Id': HOSTILE_APP.applicationId, 'X-Svc-REST-API-Key': HOSTILE_APP.restApiKey, 'Content-Type': 'application/json' };
const MASTER = { ...REST, 'X-Svc-Master-Key': HOSTILE_APP.masterKey };

/** The hostile functions, written to the quick start's functions folder (deployed at start-up to the dev application). */
export const HOSTILE_FUNCTIONS: Readonly<Record<string, string>> = {
  // Typed-array backing stores, which the heap cap once did not count (issue 36 item 2).
  typedBomb: 'function onRequest(q, r) { const a = []; for (let i = 0; i < 40; i++) a.push(new Uint8Array(25 * 1024 * 1024)); r.send(a.length) }',
  caughtBomb: 'function onRequest(q, r) { const a = []; try { for (let i = 0; i < 64; i++) a.push(new ArrayBuffer(16 * 1024 * 1024)) } catch (e) {} r.send(a.length) }',
  // Array-push and string-doubling bombs: the inline attempt once ran them for seconds (item 3).
  pushBomb: 'function onRequest(q, r) { const a = []; for (;;) a.push(a.length) }',
  stringBomb: 'function onRequest(q, r) { let s = "x"; for (;;) s += s }',
  // The burst's function: half a second of waiting each (item 4).
  slow: 'function onRequest(q, r) { setTimeout(function () { r.send("a") }, 500) }',
};
const BOMBS = ['typedBomb', 'caughtBomb', 'pushBomb', 'stringBomb'];

/** Answers by `status/code` (`error` when no answer came). */
export type Tally = Record<string, number>;

const count = (tally: Tally, key: string) => void (tally[key] = (tally[key] ?? 0) + 1);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One REST call: its `status/code` key and its JSON answer. */
async function call(base: string, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<{ key: string; code?: number; body?: Record<string, unknown> }> {
  try {
    const response = await fetch(`${base}${path}`, { method, headers, signal: AbortSignal.timeout(30_000), ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const text = await response.text();
    let answer: Record<string, unknown> | undefined;
    try {
      answer = JSON.parse(text) as Record<string, unknown>;
    } catch {
      answer = undefined;
    }
    const code = typeof answer?.['code'] === 'number' ? answer['code'] : undefined;
    return { key: code === undefined ? String(response.status) : `${response.status}/${code}`, ...(code === undefined ? {} : { code }), ...(answer ? { body: answer } : {}) };
  } catch {
    return { key: 'error' };
  }
}

export interface Stopper {
  stopped(): boolean;
}

/**
 * `loops` callers, each calling the bombs in turn as the dev application's REST key. A bomb that
 * got its function suspended (11031, repeated timeouts) is resumed with the master key at once: the
 * attacker owns its application, so the load never stops on the suspension.
 */
export async function allocationBombs(base: string, loops: number, stop: Stopper, tally: Tally): Promise<void> {
  await Promise.all(
    Array.from({ length: loops }, async (_, k) => {
      for (let i = k; !stop.stopped(); i++) {
        const name = BOMBS[i % BOMBS.length]!;
        const answer = await call(base, 'POST', `/1/functions/${name}`, REST, {});
        count(tally, `${name} ${answer.key}`);
        if (answer.code === 11031) count(tally, `resumed ${(await call(base, 'PUT', `/1/cloudCode/${name}`, MASTER, { suspended: false })).key}`);
        if (answer.key === 'error') await pause(100);
      }
    }),
  );
}

/** Every `everyMs`, `size` concurrent calls of `slow` from the dev application. */
export async function functionBurst(base: string, size: number, everyMs: number, stop: Stopper, tally: Tally): Promise<void> {
  while (!stop.stopped()) {
    const started = performance.now();
    const answers = await Promise.all(Array.from({ length: size }, () => call(base, 'POST', '/1/functions/slow', REST, {})));
    for (const answer of answers) count(tally, answer.key);
    await pause(Math.max(0, everyMs - (performance.now() - started)));
  }
}

/** A heavy where nobody else has: a 900-value `$in` (distinct values) and a regex, about 920 in where cost. */
function heavyWhere(n: number): Record<string, unknown> {
  return { tag: { $in: Array.from({ length: 900 }, (_, k) => `v${k}-${n}`) }, name: { $regex: `^h.*q${n}$` } };
}

/**
 * `connections` realtime connections of the dev application (more than its per-address share, so
 * some are refused and retried every 2 s), each sending `perSecond` distinct heavy where subscribes
 * and, when refused for cost or count, dropping its oldest subscription to make room (so compiled
 * wheres churn); and one writer updating the table they watch with a long array and a long string
 * (and a new column on each of its first 200 writes), which makes every where work.
 */
export async function subscriptionFlood(base: string, connections: number, perSecond: number, stop: Stopper, tally: Tally): Promise<void> {
  const wsUrl = `${base.replace(/^http/, 'ws')}/1/realtime`;
  const hot = await call(base, 'POST', '/1/classes/Hot', REST, { tag: ['none'], name: 'hello' });
  const hotId = hot.body?.['objectId'];
  if (typeof hotId !== 'string') throw new Error(`could not create the watched record (${hot.key})`);
  const live = new Set<WebSocket>();
  let next = 0;
  const open = () => {
    const ws = new WebSocket(wsUrl, { headers: REST });
    const held: string[] = [];
    let timer: ReturnType<typeof setInterval> | undefined;
    let refused = false;
    ws.on('unexpected-response', (_req, res) => {
      refused = true;
      count(tally, `upgrade ${res.statusCode ?? 0}`);
      res.resume();
      ws.terminate();
    });
    // A refused upgrade also ends in an error event: counted once, as the refusal.
    ws.on('error', () => void (refused || count(tally, 'socket error')));
    ws.on('open', () => {
      live.add(ws);
      timer = setInterval(() => {
        const id = `s${next}`;
        ws.send(JSON.stringify({ op: 'subscribe', id, tableName: 'Hot', where: heavyWhere(next++) }));
      }, Math.max(1, Math.round(1000 / perSecond)));
    });
    ws.on('message', (data) => {
      const message = JSON.parse(String(data)) as { op: string; id?: string; code?: number };
      if (message.op === 'subscribed' && message.id) {
        count(tally, 'subscribed');
        held.push(message.id);
      } else if (message.op === 'error') {
        count(tally, `refused ${message.code ?? '?'}`);
        // Past a cost or count limit: drop the oldest to make room for the next distinct where.
        if ((message.code === 11166 || message.code === 11161) && held.length > 0) ws.send(JSON.stringify({ op: 'unsubscribe', id: held.shift() }));
      }
    });
    ws.on('close', (code) => {
      clearInterval(timer);
      if (live.delete(ws)) count(tally, `closed ${code}`);
    });
  };
  const writer = (async () => {
    for (let writes = 0; !stop.stopped(); writes++) {
      const body: Record<string, unknown> = { tag: Array.from({ length: 1000 }, (_, k) => `x${k}`), name: `h${'e'.repeat(2000)}${writes}` };
      if (writes < 200) body[`c${writes}`] = writes;
      count(tally, `write ${(await call(base, 'PUT', `/1/classes/Hot/${hotId}`, REST, body)).key}`);
    }
  })();
  while (!stop.stopped()) {
    for (let i = live.size; i < connections; i++) open();
    await pause(2000);
  }
  for (const ws of live) ws.terminate();
  await writer;
}

/** How long the server let sockets live, s: closed ones, and at the end the ones still open. */
export interface Lifetimes {
  readonly closed: number[];
  /** Ages of the sockets still open when the load stopped (a socket the server never closes shows here). */
  readonly open: number[];
}

type Kind = 'silent' | 'slowloris' | 'keepAlive';

/**
 * Keeps `size` sockets of one kind open, replacing each the server closes:
 * `silent` connects and never sends a byte; `slowloris` sends a request head one header line a
 * second, never finishing it; `keepAlive` makes one request and then stays silent (its lifetime
 * counts from the response). Records each socket's lifetime.
 */
export async function socketPool(port: number, kind: Kind, size: number, stop: Stopper): Promise<Lifetimes> {
  const closed: number[] = [];
  const open = new Map<Socket, { since: number; drip?: ReturnType<typeof setInterval> }>();
  const head = `GET /1/timestamp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Svc-Application-Id: ${HOSTILE_APP.applicationId}\r\nX-Svc-REST-API-Key: ${HOSTILE_APP.restApiKey}\r\n`;
  const openOne = () => {
    const socket = connect(port, '127.0.0.1');
    const state: { since: number; drip?: ReturnType<typeof setInterval> } = { since: Number.NaN };
    open.set(socket, state);
    socket.on('connect', () => {
      state.since = performance.now();
      if (kind === 'slowloris') {
        socket.write('GET /1/timestamp HTTP/1.1\r\nHost: 127.0.0.1\r\n');
        let n = 0;
        state.drip = setInterval(() => socket.write(`X-Slow-${n++}: y\r\n`), 1000);
      } else if (kind === 'keepAlive') {
        socket.write(`${head}\r\n`);
        // Restart the clock at the response: the keep-alive timeout counts from it.
        socket.once('data', () => (state.since = performance.now()));
      }
    });
    socket.on('data', () => {});
    socket.on('error', () => {});
    socket.on('close', () => {
      clearInterval(state.drip);
      open.delete(socket);
      if (!Number.isNaN(state.since) && !stop.stopped()) closed.push((performance.now() - state.since) / 1000);
      if (!stop.stopped()) setTimeout(openOne, 50);
    });
    socket.on('end', () => socket.destroy());
  };
  // Opened in batches, so the listen backlog never overflows.
  for (let i = 0; i < size && !stop.stopped(); i += 200) {
    for (let k = i; k < Math.min(size, i + 200); k++) openOne();
    await pause(100);
  }
  while (!stop.stopped()) await pause(200);
  const now = performance.now();
  const ages = [...open.values()].filter((s) => !Number.isNaN(s.since)).map((s) => (now - s.since) / 1000);
  for (const [socket, state] of open) {
    clearInterval(state.drip);
    socket.destroy();
  }
  return { closed, open: ages };
}
