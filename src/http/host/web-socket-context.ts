import type { FeatureSocket } from '../../features/sockets.js';
import { closeReason } from './close-reason.js';

/**
 * Hono's `WSContext` by shape (`hono/ws`: what `upgradeWebSocket` hands its events on Bun, Deno,
 * Cloudflare Workers and @hono/node-ws): svcbase does not import hono.
 */
export interface WebSocketContextLike {
  send(data: string): void;
  close(code?: number, reason?: string): void;
  readonly readyState: number;
  /** The runtime's own socket: `ws` on Node, a web WebSocket on Deno, Bun's ServerWebSocket. */
  readonly raw?: unknown;
}

/** What the runtime's raw socket may offer beyond `WSContext` (each is used only when present). */
interface RawSocketExtras {
  readonly bufferedAmount?: number;
  getBufferedAmount?(): number;
  ping?(): void;
  terminate?(): void;
  on?(event: 'pong', listener: () => void): void;
}

const OPEN = 1;

/** A FeatureSocket over a `WSContext`, fed by the events `upgradeWebSocket` delivers. */
export interface WebSocketContextSocket {
  readonly socket: FeatureSocket;
  opened(ws: WebSocketContextLike): void;
  message(data: unknown): void;
  closed(): void;
  failed(error: unknown): void;
}

/**
 * Adapts the event form of a fetch-style runtime's WebSocket to the FeatureSocket port. A text frame
 * past `maxPayload` bytes closes the socket with 1009 (the runtime's own frame limit may be larger).
 */
export function webSocketContextSocket(maxPayload: number): WebSocketContextSocket {
  let ws: WebSocketContextLike | undefined;
  let gone = false;
  const messageListeners: Array<(message: string | Uint8Array) => void> = [];
  const pongListeners: Array<() => void> = [];
  const closeListeners: Array<() => void> = [];
  const errorListeners: Array<(error: unknown) => void> = [];
  const raw = () => (ws?.raw ?? {}) as RawSocketExtras;
  const isOpen = () => !gone && ws !== undefined && ws.readyState === OPEN;
  const close = (code: number, reason: string) => {
    try {
      ws?.close(code, reason);
    } catch {
      // A web WebSocket accepts only 1000 and 3000-4999 from a script.
      ws?.close(code >= 3000 ? code : 1000, reason);
    }
  };

  const socket: FeatureSocket = {
    send: (text) => {
      if (isOpen()) ws!.send(text);
    },
    get bufferedAmount() {
      const extras = raw();
      return extras.getBufferedAmount?.() ?? extras.bufferedAmount ?? 0;
    },
    get isOpen() {
      return isOpen();
    },
    close: (code, reason) => close(code, closeReason(reason)),
    terminate: () => {
      const extras = raw();
      if (typeof extras.terminate === 'function') extras.terminate();
      else close(1001, 'terminated');
    },
    ping: () => {
      const extras = raw();
      if (!isOpen() || typeof extras.ping !== 'function' || typeof extras.on !== 'function') return false;
      extras.ping();
      return true;
    },
    onMessage: (listener) => void messageListeners.push(listener),
    onPong: (listener) => void pongListeners.push(listener),
    onClose: (listener) => void closeListeners.push(listener),
    onError: (listener) => void errorListeners.push(listener),
  };

  return {
    socket,
    opened(context) {
      ws = context;
      const extras = raw();
      if (typeof extras.ping === 'function' && typeof extras.on === 'function') extras.on('pong', () => pongListeners.forEach((listener) => listener()));
    },
    message(data) {
      if (gone) return;
      if (typeof data === 'string') {
        if (Buffer.byteLength(data) > maxPayload) return close(1009, 'message too big');
        messageListeners.forEach((listener) => listener(data));
        return;
      }
      const bytes = data instanceof ArrayBuffer ? new Uint8Array(data) : ArrayBuffer.isView(data) ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength) : new Uint8Array(0);
      if (bytes.byteLength > maxPayload) return close(1009, 'message too big');
      messageListeners.forEach((listener) => listener(bytes));
    },
    closed() {
      if (gone) return;
      gone = true;
      closeListeners.forEach((listener) => listener());
    },
    failed(error) {
      errorListeners.forEach((listener) => listener(error));
    },
  };
}
