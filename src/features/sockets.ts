/**
 * A WebSocket the host accepted for a feature (realtime, AI chat): the few operations features use,
 * so no feature sees the host's server or socket library. The host glue adapts `ws` for node:http,
 * Express and Fastify (src/http/host/ws-socket.ts); another runtime adapts its own socket to this.
 */
export interface FeatureSocket {
  /** Queues one text frame (dropped when the socket is no longer open). */
  send(text: string): void;
  /**
   * Queues one text frame given as its UTF-8 bytes, which the host sends as they are (one encoding
   * serves every socket a frame goes to); absent where the host cannot (then `send` is used). The
   * bytes must not change once handed over: a host may keep them, or the frame it built of them,
   * for the next socket the same bytes go to.
   */
  sendUtf8?(bytes: Uint8Array): void;
  /** Bytes queued and not yet written to the network (a slow reader's backlog). */
  readonly bufferedAmount: number;
  /** Whether frames can still be sent. */
  readonly isOpen: boolean;
  /** Starts the closing handshake; `reason` is cut to 123 bytes. */
  close(code: number, reason: string): void;
  /** Drops the connection at once, without a closing handshake. */
  terminate(): void;
  /** Sends a protocol ping (the pong arrives on `onPong`); false when the host cannot ping. */
  ping(): boolean;
  /** Text frames as strings, binary frames as bytes. */
  onMessage(listener: (message: string | Uint8Array) => void): void;
  onPong(listener: () => void): void;
  /** Called once when the connection is gone (closed by either side, or dropped). */
  onClose(listener: () => void): void;
  onError(listener: (error: unknown) => void): void;
}

/** What a feature asks when it accepts an upgrade. */
export interface AcceptOptions {
  /** The largest frame the peer may send, in bytes; a larger one closes the socket (1009). */
  readonly maxPayload: number;
}
