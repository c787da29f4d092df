import { createRequire } from 'node:module';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { WebSocket } from 'ws';
import { openAiCompatibleProvider } from '../../src/ai/index.js';
import type { ApplicationConfig } from '../../src/app/application.js';
import { FakeClock } from '../../src/core/clock.js';
import type { ServiceOptions } from '../../src/service.js';
import { TEST_APP, type TestServer, startTestServer } from '../helpers/server.js';
import { FAKE_API_KEY, type FakeOpenAi, startFakeOpenAi } from './fake-openai.js';

/** AI chat over a real WebSocket on a real server, against a local fake OpenAI-compatible provider. */

interface Closed {
  code: number;
  reason: string;
}

/** A raw client: every frame's content in order, and how the socket closed. */
class ChatClient {
  readonly contents: string[] = [];
  closed: Closed | null = null;
  private waiters: Array<() => void> = [];
  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      this.contents.push(JSON.parse(String(data)).choices[0].delta.content);
      this.wake();
    });
    ws.on('close', (code, reason) => {
      this.closed = { code, reason: String(reason) };
      this.wake();
    });
  }

  static open(url: string): Promise<ChatClient> {
    const ws = new WebSocket(url);
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(new ChatClient(ws)));
      ws.once('unexpected-response', (_req, res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c));
        res.on('end', () => reject(Object.assign(new Error(`HTTP ${res.statusCode}`), { status: res.statusCode, body: JSON.parse(body || '{}') })));
      });
      ws.once('error', reject);
    });
  }

  private wake() {
    for (const w of this.waiters.splice(0)) w();
  }

  /** Waits until `check` holds (an event of this socket re-checks it). */
  async until(check: () => boolean): Promise<void> {
    while (!check()) await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  send(frame: unknown) {
    this.ws.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
  }

  /** Sends a turn and resolves with the reply's pieces, once its end frame ("") arrived. */
  async turn(frame: unknown): Promise<string[]> {
    const from = this.contents.length;
    this.send(frame);
    await this.until(() => this.contents.indexOf('', from) >= 0 || this.closed !== null);
    const end = this.contents.indexOf('', from);
    if (end < 0) throw new Error(`closed: ${JSON.stringify(this.closed)}`);
    return this.contents.slice(from, end);
  }

  async closedWith(): Promise<Closed> {
    await this.until(() => this.closed !== null);
    return this.closed!;
  }
}

const user = (content: string, session = 's1', extra: Record<string, unknown> = {}) => ({ messages: [{ role: 'user', content }], session, ...extra });

describe('AI chat over WebSocket', () => {
  let fake: FakeOpenAi;
  let server: TestServer | undefined;
  let clock: FakeClock;
  const clients: ChatClient[] = [];

  beforeAll(async () => {
    fake = await startFakeOpenAi();
  });
  afterAll(() => fake.close());
  afterEach(async () => {
    for (const client of clients.splice(0)) client.ws.terminate();
    await server?.close();
    server = undefined;
    fake.completions.length = 0;
  });

  async function start(ai: Record<string, unknown> = {}, options: Partial<ServiceOptions> = {}, provider: Partial<Parameters<typeof openAiCompatibleProvider>[0]> = {}) {
    clock = new FakeClock(Date.UTC(2026, 0, 1, 12));
    const app: ApplicationConfig = { ...TEST_APP, featureSettings: { ai } };
    server = await startTestServer({
      clock,
      captcha: false,
      applications: [app],
      ai: { provider: openAiCompatibleProvider({ baseUrl: `${fake.url}/v1`, apiKey: FAKE_API_KEY, ...provider }), model: 'model-a' },
      ...options,
    });
    server.server.on('upgrade', (req, socket, head) => void server!.service.handleUpgrade(req, socket, head));
    return server;
  }
  const connect = async (secret = TEST_APP.secretKey!) => {
    const client = await ChatClient.open(`${server!.url.replace('http', 'ws')}/1/ai/${secret}`);
    clients.push(client);
    return client;
  };

  it('streams the reply as the SDK expects: non-empty pieces, then exactly one empty-string frame', async () => {
    await start();
    const client = await connect();
    const pieces = await client.turn(user('hello 世界'));
    expect(pieces.join('')).toBe('echo: hello 世界');
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.every((p) => p !== '')).toBe(true);
    expect(client.contents.filter((c) => c === '')).toHaveLength(1);
    const sent = fake.completions[0]!;
    expect(sent.body).toMatchObject({ model: 'model-a', stream: true, stream_options: { include_usage: true }, max_tokens: 1024, messages: [{ role: 'user', content: 'hello 世界' }] });
  });

  it('keeps context per session across messages and connections, with the system prompts first and bounds applied', async () => {
    await start({ systemPrompt: 'You are terse.', maxContextMessages: 4 });
    const client = await connect();
    await client.turn(user('one'));
    await client.turn({ messages: [{ role: 'system', content: 'Answer in French.' }, { role: 'user', content: 'two' }], session: 's1' });
    await client.turn(user('other', 's2'));
    expect(fake.completions[1]!.body.messages).toEqual([
      { role: 'system', content: 'You are terse.' },
      { role: 'system', content: 'Answer in French.' },
      { role: 'user', content: 'one' },
      { role: 'assistant', content: 'echo: one' },
      { role: 'user', content: 'two' },
    ]);
    expect(fake.completions[2]!.body.messages).toEqual([{ role: 'system', content: 'You are terse.' }, { role: 'user', content: 'other' }]);
    // A new connection continues session s1; only the newest 4 messages are kept.
    const again = await connect();
    await again.turn(user('three'));
    expect(fake.completions[3]!.body.messages.slice(1)).toEqual([
      { role: 'user', content: 'one' },
      { role: 'assistant', content: 'echo: one' },
      { role: 'user', content: 'two' },
      { role: 'assistant', content: 'echo: one | two' },
      { role: 'user', content: 'three' },
    ]);
    await again.turn(user('four'));
    expect(fake.completions[4]!.body.messages.slice(1, 2)).toEqual([{ role: 'user', content: 'two' }]);
    // The context expires after contextTtlSeconds (default one day).
    clock.advance(86_400_001);
    await again.turn(user('fresh'));
    expect(fake.completions[5]!.body.messages.slice(1)).toEqual([{ role: 'user', content: 'fresh' }]);
  });

  it('runs turns sent back to back one after another on one connection', async () => {
    await start();
    const client = await connect();
    client.send(user('a', 'x'));
    client.send(user('b', 'x'));
    client.send(user('c', 'x'));
    await client.until(() => client.contents.filter((c) => c === '').length === 3);
    const replies = client.contents.join('\u0000').split('\u0000\u0000').map((r) => r.replaceAll('\u0000', ''));
    expect(replies.slice(0, 3)).toEqual(['echo: a', 'echo: a | b', 'echo: a | b | c']);
  });

  it('forwards pieces of a slow stream as they come', async () => {
    await start();
    const client = await connect();
    client.send(user('slow: take your time'));
    await client.until(() => client.contents.length > 0);
    expect(fake.completions[0]!.finished).toBe(false);
    await client.until(() => client.contents.includes(''));
    expect(client.contents.join('')).toBe('reply to take your time');
  });

  it('an upstream failure mid-stream closes the socket with 11191, without the end frame, and stores no context', async () => {
    await start();
    const client = await connect();
    client.send(user('fail: this breaks'));
    const closed = await client.closedWith();
    expect(closed.code).toBe(4424);
    expect(closed.reason).toMatch(/^11191 /);
    expect(client.contents).not.toContain('');
    const next = await connect();
    await next.turn(user('after'));
    expect(fake.completions[1]!.body.messages).toEqual([{ role: 'user', content: 'after' }]);
  });

  it('a client that goes away aborts the upstream request', async () => {
    await start();
    const client = await connect();
    client.send(user('hang'));
    await fake.received(1);
    const aborted = fake.abortedRequest(1);
    client.ws.close();
    await aborted;
    expect(fake.completions[0]!.aborted).toBe(true);
  });

  it('provider errors, a bad stream and a silent provider close the socket with coded reasons', async () => {
    await start({}, {}, { idleTimeoutMs: 50 });
    const cases: Array<[string, number, RegExp]> = [
      ['status 429', 4424, /^11191 .*HTTP 429 fake failure 429/],
      ['status 500', 4424, /^11191 .*HTTP 500/],
      ['bad event', 4424, /^11191 .*unreadable/],
      ['hang', 4424, /^11197 /],
    ];
    for (const [content, code, reason] of cases) {
      const client = await connect();
      client.send(user(content));
      const closed = await client.closedWith();
      expect([content, closed.code, closed.reason]).toEqual([content, code, expect.stringMatching(reason)]);
    }
  });

  it('a wrong provider key is an 11191 naming the provider\'s answer', async () => {
    await start({}, { ai: { provider: openAiCompatibleProvider({ baseUrl: `${fake.url}/v1`, apiKey: 'wrong' }), model: 'model-a' } });
    const client = await connect();
    client.send(user('hi'));
    expect((await client.closedWith()).reason).toMatch(/^11191 .*HTTP 401 Incorrect API key/);
  });

  it('refuses bad frames with 11192 and never calls the provider', async () => {
    await start({ maxMessageBytes: 200 });
    const frames: unknown[] = ['not json', '[]', { session: 's' }, { messages: [], session: 's' }, { messages: [{ role: 'tool', content: 'x' }], session: 's' }, { messages: [{ role: 'user', content: 'x' }], session: "a'b" }, user('x', 's', { surprise: 1 }), { messages: [{ role: 'system', content: 'only system' }], session: 's' }, user('x'.repeat(300))];
    for (const frame of frames) {
      const client = await connect();
      client.send(frame);
      const closed = await client.closedWith();
      expect([frame, closed.code, closed.reason.slice(0, 6)]).toEqual([frame, 4400, '11192 ']);
    }
    const binary = await connect();
    binary.ws.send(Buffer.from([1, 2, 3]));
    expect((await binary.closedWith()).reason).toMatch(/^11192 /);
    expect(fake.completions).toHaveLength(0);
  });

  it('a client picks a model only from the allow-list', async () => {
    await start({ model: 'model-b', models: ['model-c'] });
    const client = await connect();
    await client.turn(user('default'));
    await client.turn(user('pick', 's1', { model: 'model-c' }));
    expect(fake.completions.map((c) => c.body.model)).toEqual(['model-b', 'model-c']);
    client.send(user('other', 's1', { model: 'gpt-expensive' }));
    expect(await client.closedWith()).toEqual({ code: 4400, reason: "11196 model 'gpt-expensive' is not allowed for this application." });
  });

  it('limits messages per minute across connections (11194), until the window passes', async () => {
    await start({ messagesPerMinute: 2 });
    const a = await connect();
    await a.turn(user('1'));
    const b = await connect();
    await b.turn(user('2'));
    b.send(user('3'));
    expect(await b.closedWith()).toMatchObject({ code: 4429, reason: expect.stringMatching(/^11194 /) });
    clock.advance(60_000);
    await (await connect()).turn(user('4'));
    expect(fake.completions).toHaveLength(3);
  });

  it('limits tokens per day from the provider\'s usage (estimated without it), until the next UTC day', async () => {
    await start({ tokensPerDay: 30 });
    const client = await connect();
    await client.turn(user('a')); // 18 tokens reported
    await client.turn(user('b')); // 36: now past the quota
    client.send(user('c'));
    expect(await client.closedWith()).toMatchObject({ code: 4429, reason: '11195 the AI token quota of this application for today (30) is used up.' });
    clock.advance(12 * 3_600_000);
    const next = await connect();
    await next.turn(user('no usage: estimated'));
    expect(fake.completions).toHaveLength(3);
  });

  it('limits streams at once per application (11193) and frees the slot when a stream ends', async () => {
    await start({ maxConcurrentStreams: 1 });
    const first = await connect();
    first.send(user('hang', 'h'));
    await fake.received(1);
    const second = await connect();
    second.send(user('hi', 'other'));
    expect(await second.closedWith()).toMatchObject({ code: 4429, reason: expect.stringMatching(/^11193 /) });
    first.ws.close();
    await fake.abortedRequest(1);
    const third = await connect();
    await first.until(() => first.closed !== null);
    await third.turn(user('now'));
  });

  it('answers 11190 before the upgrade when no provider is configured or the application has it off; 401 for an unknown secret key', async () => {
    await start({}, { ai: {} });
    await expect(connect()).rejects.toMatchObject({ status: 403, body: { code: 11190 } });
    await server!.close();
    await start({ enabled: false });
    await expect(connect()).rejects.toMatchObject({ status: 403, body: { code: 11190 } });
    await expect(connect('not-a-secret-key')).rejects.toMatchObject({ status: 401 });
  });

  it('refuses invalid application settings at start-up', async () => {
    await expect(start({ tokensPerDay: -1 })).rejects.toMatchObject({ code: 11116 });
    await expect(start({ surprise: true })).rejects.toMatchObject({ code: 11116 });
  });
});

describe('AI chat through the SDK\'s own webSocketAiClient (hydrogen-js-sdk 2.7.3, unmodified)', () => {
  const require = createRequire(import.meta.url);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const Bmob: any = require('hydrogen-js-sdk');
  let fake: FakeOpenAi;
  let server: TestServer;
  const hadWebSocket = 'WebSocket' in globalThis;
  const previous = (globalThis as { WebSocket?: unknown }).WebSocket;

  beforeAll(async () => {
    fake = await startFakeOpenAi();
    server = await startTestServer({ captcha: false, ai: { provider: openAiCompatibleProvider({ baseUrl: `${fake.url}/v1`, apiKey: FAKE_API_KEY }), model: 'model-a' } });
    server.server.on('upgrade', (req, socket, head) => void server.service.handleUpgrade(req, socket, head));
    Bmob.initialize(TEST_APP.secretKey, TEST_APP.securityCode);
    Bmob.domain(server.url);
    // Node 20 has no global WebSocket: the browser code path gets ws's, which has the same API.
    (globalThis as { WebSocket?: unknown }).WebSocket = WebSocket;
    vi.spyOn(console, 'log').mockImplementation(() => {});
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    if (hadWebSocket) (globalThis as { WebSocket?: unknown }).WebSocket = previous;
    else delete (globalThis as { WebSocket?: unknown }).WebSocket;
    await server.close();
    await fake.close();
  });

  it('streams pieces to onMessage, then "done" and "", with a prompt and context across two messages', async () => {
    const chat = Bmob.ChatAI();
    const received: string[] = [];
    let ended: () => void = () => {};
    let opened: () => void = () => {};
    const open = new Promise<void>((resolve) => (opened = resolve));
    chat.onOpen(() => {
      chat.connected = true;
      opened();
    });
    chat.onMessage((piece: string) => {
      received.push(piece);
      if (piece === '') ended();
    });
    await open;
    chat.setPrompt('Be brief.');
    const turn = (content: string) => {
      const done = new Promise<void>((resolve) => (ended = resolve));
      chat.send(JSON.stringify({ messages: [{ content, role: 'user' }], session: 'sdk-session' }));
      return done;
    };
    await turn('你好');
    expect(received.slice(-2)).toEqual(['done', '']);
    expect(received.slice(0, -2).join('')).toBe('echo: 你好');
    received.length = 0;
    await turn('again');
    expect(received.slice(0, -2).join('')).toBe('echo: 你好 | again');
    expect(fake.completions[1]!.body.messages[0]).toEqual({ role: 'system', content: 'Be brief.' });
    let closed: () => void = () => {};
    const gone = new Promise<void>((resolve) => (closed = resolve));
    chat.onClose(() => closed());
    chat.close();
    await gone;
  });

  /** An SDK client, open, with its pieces and its close recorded. */
  async function sdkChat() {
    const chat = Bmob.ChatAI();
    const state = { pieces: [] as string[], closed: false, errored: false };
    const events: Array<() => void> = [];
    const wake = () => events.splice(0).forEach((resolve) => resolve());
    const until = async (check: () => boolean) => {
      while (!check()) await new Promise<void>((resolve) => events.push(resolve));
    };
    chat.onOpen(() => {
      chat.connected = true;
      wake();
    });
    chat.onMessage((piece: string) => {
      state.pieces.push(piece);
      wake();
    });
    chat.onClose(() => {
      state.closed = true;
      wake();
    });
    chat.onError(() => {
      state.errored = true;
      wake();
    });
    await until(() => chat.connected === true);
    const send = (content: string) => chat.send(JSON.stringify({ messages: [{ content, role: 'user' }], session: `sdk-${content.length}-${content.charCodeAt(0)}` }));
    return { chat, state, until, send };
  }

  it('a slow stream reaches onMessage piece by piece, before the provider has finished', async () => {
    const { state, until, send, chat } = await sdkChat();
    const before = fake.completions.length;
    send('slow: piece by piece');
    await until(() => state.pieces.length > 0 || state.closed);
    expect(fake.completions[before]!.finished).toBe(false);
    await until(() => state.pieces.includes(''));
    expect(state.pieces.slice(0, -2).join('')).toBe('reply to piece by piece');
    chat.close();
  });

  it('a failure mid-stream reaches onClose without "done"; closing the client aborts the provider\'s stream', async () => {
    const failing = await sdkChat();
    failing.send('fail: halfway');
    await failing.until(() => failing.state.closed);
    expect(failing.state.pieces).not.toContain('done');
    const leaving = await sdkChat();
    const n = fake.completions.length + 1;
    leaving.send('hang');
    await fake.received(n);
    const aborted = fake.abortedRequest(n);
    leaving.chat.close();
    await aborted;
  });
});
