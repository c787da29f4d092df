import type { Json } from '../../core/wire-values.js';

/**
 * The frames between the Node host and a JVM worker (java/src/svcbase/worker): a 4-byte big-endian
 * length, then that many bytes of UTF-8 JSON.
 */
export type ToJava =
  | { readonly t: 'invoke'; readonly id: number; readonly dir: string; readonly cls: string; readonly lineOffset: number; readonly request: JavaRequest }
  | { readonly t: 'answer'; readonly id: number; readonly call: number; readonly ok: true; readonly value: Json }
  | { readonly t: 'answer'; readonly id: number; readonly call: number; readonly ok: false; readonly code: number; readonly error: string; readonly status: number };

export type FromJava =
  | { readonly t: 'ready' }
  | { readonly t: 'call'; readonly id: number; readonly call: number; readonly module: string; readonly method: string; readonly args: Json[] }
  | { readonly t: 'log'; readonly id: number; readonly level: string; readonly text: string }
  | { readonly t: 'send'; readonly id: number; readonly status: number; readonly text: boolean; readonly body: string; readonly headers: Record<string, string>; readonly statusMessage?: string }
  | { readonly t: 'end'; readonly id: number }
  | { readonly t: 'fail'; readonly id: number; readonly error: string }
  /** A function left work running after its invocation (Leftovers.java): the host replaces the JVM. */
  | { readonly t: 'recycle'; readonly reason: string };

const isId = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
const isText = (value: unknown): value is string => typeof value === 'string';
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Each frame type's shape: its fields besides `t`. */
const SHAPES: Readonly<Record<FromJava['t'], (f: Record<string, unknown>) => boolean>> = {
  ready: () => true,
  recycle: (f) => isText(f['reason']),
  call: (f) => isId(f['id']) && isId(f['call']) && isText(f['module']) && isText(f['method']) && Array.isArray(f['args']),
  log: (f) => isId(f['id']) && isText(f['level']) && isText(f['text']),
  send: (f) => isId(f['id']) && typeof f['status'] === 'number' && typeof f['text'] === 'boolean' && isText(f['body']) && isObject(f['headers']) && (f['statusMessage'] === undefined || isText(f['statusMessage'])),
  end: (f) => isId(f['id']),
  fail: (f) => isId(f['id']) && isText(f['error']),
};

/** A frame from the JVM checked against its shape, or null (the host then treats the worker as broken). */
export function fromJavaFrame(value: unknown): FromJava | null {
  if (!isObject(value) || typeof value['t'] !== 'string' || !Object.hasOwn(SHAPES, value['t'])) return null;
  return SHAPES[value['t'] as FromJava['t']](value) ? (value as unknown as FromJava) : null;
}

/** The call as `svcbase.cloud.Request` reads it. */
export interface JavaRequest {
  readonly path: string;
  readonly method: string;
  /** Values are arrays, as the hosted Request's headers are. */
  readonly headers: Record<string, string[]>;
  readonly query: Record<string, string>;
  readonly params: Record<string, Json>;
  /** Base64 of the body bytes. */
  readonly body: string;
}

export function encodeFrame(frame: ToJava): Buffer {
  const body = Buffer.from(JSON.stringify(frame), 'utf8');
  const out = Buffer.allocUnsafe(4 + body.length);
  out.writeUInt32BE(body.length, 0);
  body.copy(out, 4);
  return out;
}

/** Splits a byte stream into frames; a frame over `maxBytes` is a protocol error. */
export class FrameReader {
  private buffered: Buffer = Buffer.alloc(0);

  constructor(private readonly maxBytes = 64 * 1024 * 1024) {}

  push(chunk: Buffer): FromJava[] {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    const frames: FromJava[] = [];
    while (this.buffered.length >= 4) {
      const length = this.buffered.readUInt32BE(0);
      if (length > this.maxBytes) throw new Error(`frame of ${length} bytes from the Java worker`);
      if (this.buffered.length < 4 + length) break;
      const frame = fromJavaFrame(JSON.parse(this.buffered.subarray(4, 4 + length).toString('utf8')));
      if (!frame) throw new Error('a malformed frame from the Java worker');
      frames.push(frame);
      this.buffered = this.buffered.subarray(4 + length);
    }
    return frames;
  }
}
