import type { Json } from '../../core/wire-values.js';
import type { SandboxLimits } from './quickjs-sandbox.js';
import type { SandboxFunction } from './warm-contexts.js';

/** What a sandbox worker starts with. */
export interface SandboxWorkerData {
  /** Where the worker resolves QuickJS from (the package's own location). */
  readonly resolveFrom: string;
  /** The niceness the worker gives its own thread (background-priority.ts). */
  readonly niceness: number;
}

export type HostAnswer = { readonly ok: Json } | { readonly err: { readonly code: number; readonly error: string } };

export interface SentReply {
  readonly value: Json;
  readonly status: number;
  readonly headers: Record<string, string>;
}

/** A reply as the prelude's encodeReply wrote it: 's' and a plain 200 text, or 'j' and the reply's JSON. */
export function replyOfText(text: string): SentReply {
  return text.startsWith('s') ? { value: text.slice(1), status: 200, headers: {} } : (JSON.parse(text.slice(1)) as SentReply);
}

/**
 * Keyed sources a worker keeps (least recently run forgotten first); the pool tracks the same, so
 * it sends a source again exactly when the worker forgot it.
 */
export const WORKER_SOURCES = 256;

/** A `SandboxFunction` as a run message carries it: without its source when the worker has it already. */
export type WireFunction = Omit<SandboxFunction, 'source'> & { readonly source?: string };

/** Main thread → worker, posted as JSON text (about half the cost of a structured clone). */
export type ToWorker =
  | {
      readonly type: 'run';
      readonly id: number;
      /**
       * The function. Its source is left out when this worker was sent this key and version before
       * (a warm function's text crosses once per worker, not once per invocation).
       */
      readonly fn: WireFunction;
      /** The request as one text (sandbox-request.ts: `sandboxRequestText`). */
      readonly requestText: string;
      readonly limits: SandboxLimits;
    }
  | { readonly type: 'answer'; readonly callId: number; readonly answer: HostAnswer };

/** Worker → main thread, posted as JSON arrays: the messages of one turn together, in order. */
export type ToPool =
  | { readonly type: 'ready' }
  | { readonly type: 'broken'; readonly message: string }
  | { readonly type: 'call'; readonly id: number; readonly callId: number; readonly module: string; readonly method: string; readonly args: unknown[] }
  | { readonly type: 'setHeader'; readonly id: number; readonly headers: Record<string, string> }
  | { readonly type: 'log'; readonly id: number; readonly level: string; readonly message: string }
  | { readonly type: 'send'; readonly id: number; readonly reply: SentReply }
  | { readonly type: 'fail'; readonly id: number; readonly message: string; readonly cpu: boolean }
  | { readonly type: 'idle'; readonly id: number }
  /**
   * After its last idle: the worker's wasm memory grew past what it should keep, so it starts no
   * queued job; the pool hands those to others and replaces it.
   */
  | { readonly type: 'retire' };

const isId = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
const isText = (value: unknown): value is string => typeof value === 'string';
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isTextRecord = (value: unknown): value is Record<string, string> => isObject(value) && Object.values(value).every(isText);

/** Each message type's shape: its fields besides `type`. */
const SHAPES: Readonly<Record<ToPool['type'], (m: Record<string, unknown>) => boolean>> = {
  ready: () => true,
  retire: () => true,
  broken: (m) => isText(m['message']),
  call: (m) => isId(m['id']) && isId(m['callId']) && isText(m['module']) && isText(m['method']) && Array.isArray(m['args']),
  setHeader: (m) => isId(m['id']) && isObject(m['headers']),
  log: (m) => isId(m['id']) && isText(m['level']) && isText(m['message']),
  send: (m) => isId(m['id']) && isObject(m['reply']) && typeof m['reply']['status'] === 'number' && isTextRecord(m['reply']['headers']),
  fail: (m) => isId(m['id']) && isText(m['message']) && typeof m['cpu'] === 'boolean',
  idle: (m) => isId(m['id']),
};

/**
 * A worker's batch of messages, each checked against its shape, or null when the text is not one:
 * the pool then treats the worker as broken (it is replaced; nothing it sent is acted on).
 * `setHeader`'s headers are checked by the module that applies them, a reply's status and headers
 * by the boundary that sends it (function-response.ts).
 */
export function parseToPool(text: unknown): ToPool[] | null {
  if (typeof text !== 'string') return null;
  let batch: unknown;
  try {
    batch = JSON.parse(text);
  } catch {
    return null;
  }
  if (!Array.isArray(batch)) return null;
  for (const message of batch) {
    if (!isObject(message) || typeof message['type'] !== 'string' || !Object.hasOwn(SHAPES, message['type'])) return null;
    if (!SHAPES[message['type'] as ToPool['type']](message)) return null;
  }
  return batch as ToPool[];
}
