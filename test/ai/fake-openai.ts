import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the fake received: one entry per completion request. */
export interface FakeCompletion {
  readonly body: { model: string; messages: Array<{ role: string; content: string }>; stream: boolean; max_tokens?: number; stream_options?: unknown };
  readonly authorization: string | undefined;
  /** True once the client went away before the reply was finished. */
  aborted: boolean;
  finished: boolean;
}

export interface FakeOpenAi {
  readonly url: string;
  readonly completions: FakeCompletion[];
  /** Resolves when request number `n` (from 1) was aborted by its client. */
  abortedRequest(n: number): Promise<void>;
  /** Resolves once `n` requests have arrived. */
  received(n: number): Promise<void>;
  close(): Promise<void>;
}

const API_KEY = 'sk-test-key';
export const FAKE_API_KEY = API_KEY;

/**
 * A local OpenAI-compatible chat completions server, speaking its real streaming shape: server-sent
 * events `data: {"choices":[{"delta":{...}}]}`, first an empty assistant delta, then the content, a
 * final usage chunk (with `stream_options.include_usage`), then `data: [DONE]`. Events are written in
 * pieces cut inside lines, as proxies deliver them. The last user message picks the behaviour:
 * - `slow: <text>`: a pause of 20 ms after every 8 pieces of the wire;
 * - `fail: <text>`: two pieces, then the connection is destroyed;
 * - `hang`: headers, then nothing (until the client aborts);
 * - `status 429` / `status 500`: that status with an OpenAI error body;
 * - `bad event`: a non-JSON event;
 * - `no usage: <text>`: no usage chunk;
 * - anything else: the reply `echo: <the user messages of the request, joined by " | ">`.
 * A wrong bearer token answers 401 as OpenAI does.
 */
export async function startFakeOpenAi(): Promise<FakeOpenAi> {
  const completions: FakeCompletion[] = [];
  const abortWaiters = new Map<number, () => void>();
  const arrivalWaiters: Array<{ n: number; resolve: () => void }> = [];

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      res.writeHead(404).end();
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const entry: FakeCompletion = { body: JSON.parse(Buffer.concat(chunks).toString('utf8')), authorization: req.headers.authorization, aborted: false, finished: false };
    completions.push(entry);
    const index = completions.length;
    for (const waiter of arrivalWaiters.filter((w) => w.n <= index)) {
      arrivalWaiters.splice(arrivalWaiters.indexOf(waiter), 1);
      waiter.resolve();
    }
    res.on('close', () => {
      if (!entry.finished) {
        entry.aborted = true;
        abortWaiters.get(index)?.();
      }
    });
    const error = (status: number, message: string) => {
      entry.finished = true;
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message, type: 'invalid_request_error', code: null } }));
    };
    if (entry.authorization !== `Bearer ${API_KEY}`) return error(401, 'Incorrect API key provided');
    const users = entry.body.messages.filter((m) => m.role === 'user').map((m) => m.content);
    const last = users[users.length - 1] ?? '';
    const status = /^status (\d{3})$/.exec(last);
    if (status) return error(Number(status[1]), `fake failure ${status[1]}`);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    if (last === 'hang') {
      res.flushHeaders();
      return;
    }
    const event = (payload: unknown) => `data: ${typeof payload === 'string' ? payload : JSON.stringify(payload)}\n\n`;
    const delta = (content: string, role?: string) => ({ id: 'chatcmpl-1', object: 'chat.completion.chunk', model: entry.body.model, choices: [{ index: 0, delta: role ? { role, content } : { content }, finish_reason: null }] });
    if (last === 'bad event') {
      res.end(`${event(delta('', 'assistant'))}data: {not json\n\n`);
      return;
    }
    const text = last.replace(/^(slow|fail|no usage): /, '');
    const reply = /^(slow|fail|no usage): /.test(last) ? `reply to ${text}` : `echo: ${users.join(' | ')}`;
    const pieces = reply.match(/.{1,4}/gsu) ?? [];
    let wire = event(delta('', 'assistant'));
    for (const piece of pieces) wire += event(delta(piece));
    wire += event({ id: 'chatcmpl-1', object: 'chat.completion.chunk', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
    if (!last.startsWith('no usage: ')) wire += event({ id: 'chatcmpl-1', object: 'chat.completion.chunk', choices: [], usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 } });
    wire += event('[DONE]');
    // Cut the wire every 7 bytes: events arrive split inside lines and inside UTF-8 sequences.
    const bytes = Buffer.from(wire, 'utf8');
    const slices: Buffer[] = [];
    for (let at = 0; at < bytes.length; at += 7) slices.push(bytes.subarray(at, at + 7));
    const failAt = last.startsWith('fail: ') ? Math.floor(slices.length / 3) : -1;
    for (let i = 0; i < slices.length; i++) {
      if (res.destroyed) return;
      if (i === failAt) {
        res.destroy();
        return;
      }
      res.write(slices[i]);
      if (last.startsWith('slow: ') && i % 8 === 7) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    entry.finished = true;
    res.end();
  };

  const server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    completions,
    abortedRequest: (n) =>
      new Promise<void>((resolve) => {
        if (completions[n - 1]?.aborted) return resolve();
        abortWaiters.set(n, resolve);
      }),
    received: (n) =>
      new Promise<void>((resolve) => {
        if (completions.length >= n) return resolve();
        arrivalWaiters.push({ n, resolve });
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
