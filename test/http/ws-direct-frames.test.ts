import { type IncomingMessage, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { FeatureSocket } from '../../src/features/sockets.js';
import { nodeSocketAcceptor } from '../../src/http/host/ws-socket.js';
import { ServerTextFrames, serverTextFrame } from '../../src/http/host/text-frame.js';

const utf8 = (text: string) => new TextEncoder().encode(text);

/** A node:http server whose upgrades the acceptor completes; resolves each accepted socket in order. */
async function acceptingServer() {
  const accept = nodeSocketAcceptor();
  const accepted: FeatureSocket[] = [];
  const waiting: Array<(socket: FeatureSocket) => void> = [];
  const server = createServer();
  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    void accept(request, socket, head, { maxPayload: 1024 }).then((featureSocket) => {
      if (!featureSocket) return;
      const next = waiting.shift();
      if (next) next(featureSocket);
      else accepted.push(featureSocket);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const next = () => new Promise<FeatureSocket>((resolve) => (accepted.length > 0 ? resolve(accepted.shift()!) : waiting.push(resolve)));
  return { url, next, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** A client that records every text message and ping in arrival order. */
async function recordingClient(url: string) {
  const ws = new WebSocket(url);
  const seen: string[] = [];
  ws.on('message', (data, isBinary) => seen.push(isBinary ? 'binary!' : String(data)));
  ws.on('ping', () => seen.push('(ping)'));
  const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  return { ws, seen, closed };
}

describe('text frames written straight to the upgraded socket', () => {
  it('arrive whole and in order among ws frames, at every length encoding, to every socket', async () => {
    const server = await acceptingServer();
    const clients = [await recordingClient(server.url), await recordingClient(server.url)];
    const sockets = [await server.next(), await server.next()];
    const texts = ['', 'é', 'x'.repeat(125), 'ü'.repeat(63) + '!', 'y'.repeat(126), '🙂'.repeat(16_383) + 'abc', 'z'.repeat(65_535), 'q'.repeat(65_536), `"quoted'; DROP TABLE x; --`];
    const payloads = texts.map(utf8);
    const expected: string[] = [];
    for (const [index, text] of texts.entries()) {
      for (const socket of sockets) {
        socket.sendUtf8!(payloads[index]!);
        socket.send(`ws ${index}`);
        if (index % 3 === 0) socket.ping();
      }
      expected.push(text, `ws ${index}`);
      if (index % 3 === 0) expected.push('(ping)');
    }
    for (const socket of sockets) socket.close(1000, 'done');
    for (const client of clients) {
      expect(await client.closed).toBe(1000);
      expect(client.seen).toEqual(expected);
    }
    await server.close();
  });

  it('are dropped once the socket is closing (nothing follows the close frame)', async () => {
    const server = await acceptingServer();
    const client = await recordingClient(server.url);
    const socket = await server.next();
    socket.sendUtf8!(utf8('before'));
    socket.close(1000, 'bye');
    socket.sendUtf8!(utf8('after'));
    expect(socket.isOpen).toBe(false);
    expect(await client.closed).toBe(1000);
    expect(client.seen).toEqual(['before']);
    await server.close();
  });

  it('one frame per payload serves every socket; headers follow RFC 6455 §5.2', () => {
    const frames = new ServerTextFrames();
    const payload = utf8('shared');
    expect(frames.of(payload)).toBe(frames.of(payload));
    expect([...serverTextFrame(utf8('ab'))]).toEqual([0x81, 2, 97, 98]);
    expect([...serverTextFrame(new Uint8Array(126)).subarray(0, 4)]).toEqual([0x81, 126, 0, 126]);
    expect([...serverTextFrame(new Uint8Array(125)).subarray(0, 2)]).toEqual([0x81, 125]);
    expect([...serverTextFrame(new Uint8Array(65_535)).subarray(0, 4)]).toEqual([0x81, 126, 255, 255]);
    expect([...serverTextFrame(new Uint8Array(65_536)).subarray(0, 10)]).toEqual([0x81, 127, 0, 0, 0, 0, 0, 1, 0, 0]);
  });
});
