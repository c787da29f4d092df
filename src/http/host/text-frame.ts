/**
 * A WebSocket text frame as a server sends it (RFC 6455 §5.2): FIN and opcode 1, no mask, the
 * payload length in 7, 16 or 64 bits, then the payload. Server frames carry no mask, so one frame
 * serves every socket the same text goes to.
 */
export function serverTextFrame(payload: Uint8Array): Buffer {
  const length = payload.byteLength;
  const headerBytes = length < 126 ? 2 : length < 65_536 ? 4 : 10;
  const frame = Buffer.allocUnsafe(headerBytes + length);
  frame[0] = 0x81;
  if (headerBytes === 2) {
    frame[1] = length;
  } else if (headerBytes === 4) {
    frame[1] = 126;
    frame.writeUInt16BE(length, 2);
  } else {
    frame[1] = 127;
    frame.writeUInt32BE(Math.floor(length / 2 ** 32), 2);
    frame.writeUInt32BE(length >>> 0, 6);
  }
  frame.set(payload, headerBytes);
  return frame;
}

/**
 * The framed form of each payload sent to many sockets, built on the first send and kept while the
 * payload lives (payloads are not changed once sent, as with any socket write).
 */
export class ServerTextFrames {
  private readonly framed = new WeakMap<Uint8Array, Buffer>();

  of(payload: Uint8Array): Buffer {
    let frame = this.framed.get(payload);
    if (!frame) this.framed.set(payload, (frame = serverTextFrame(payload)));
    return frame;
  }
}
