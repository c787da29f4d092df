import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { type RawData, type WebSocket, WebSocketServer } from 'ws';
import type { AcceptOptions, FeatureSocket } from '../../features/sockets.js';
import { closeReason } from './close-reason.js';
import { ServerTextFrames } from './text-frame.js';

/**
 * A `ws` socket as a feature sees it. `sendUtf8` writes a frame built once per payload (`frames`)
 * straight to `socket`, the upgraded socket `ws` speaks over: one frame then serves every socket an
 * event goes to (ws would frame it, and write it as two buffers, once per socket). Safe because `ws`
 * writes its own frames to that socket synchronously (no compression is negotiated and no Blob is
 * sent, so its sender never queues), so frames keep their order, and `bufferedAmount` counts these
 * writes too.
 */
export function wsFeatureSocket(ws: WebSocket, socket: Duplex, frames: ServerTextFrames): FeatureSocket {
  return {
    send: (text) => {
      if (ws.readyState === ws.OPEN) ws.send(text);
    },
    sendUtf8: (bytes) => {
      if (ws.readyState === ws.OPEN) socket.write(frames.of(bytes));
    },
    get bufferedAmount() {
      return ws.bufferedAmount;
    },
    get isOpen() {
      return ws.readyState === ws.OPEN;
    },
    close: (code, reason) => ws.close(code, closeReason(reason)),
    terminate: () => ws.terminate(),
    ping: () => {
      if (ws.readyState !== ws.OPEN) return false;
      ws.ping();
      return true;
    },
    onMessage: (listener) => ws.on('message', (data, isBinary) => listener(isBinary ? bytesOf(data) : textOf(data))),
    onPong: (listener) => ws.on('pong', () => listener()),
    onClose: (listener) => ws.once('close', () => listener()),
    onError: (listener) => ws.on('error', listener),
  };
}

function textOf(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.from(data).toString('utf8');
}

function bytesOf(data: RawData): Uint8Array {
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.isBuffer(data) ? data : new Uint8Array(data);
}

/** Completes handshakes on node's upgrade sockets; one `ws` server (no listener of its own) per frame limit. */
export type NodeSocketAcceptor = (request: IncomingMessage, socket: Duplex, head: Buffer, options: AcceptOptions) => Promise<FeatureSocket | undefined>;

export function nodeSocketAcceptor(): NodeSocketAcceptor {
  const servers = new Map<number, WebSocketServer>();
  const frames = new ServerTextFrames();
  const serverFor = (maxPayload: number) => {
    let server = servers.get(maxPayload);
    if (!server) servers.set(maxPayload, (server = new WebSocketServer({ noServer: true, maxPayload, perMessageDeflate: false, clientTracking: false })));
    return server;
  };
  return (request, socket, head, options) =>
    new Promise((resolve) => {
      if (socket.destroyed) return resolve(undefined);
      // A malformed handshake is answered by ws and the socket destroyed without a callback.
      socket.once('close', () => resolve(undefined));
      // perMessageDeflate is off on every server here, which sendUtf8's own frames rely on.
      serverFor(options.maxPayload).handleUpgrade(request, socket, head, (ws) => resolve(wsFeatureSocket(ws, socket, frames)));
    });
}
