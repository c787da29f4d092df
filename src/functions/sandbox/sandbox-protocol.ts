import type { Json } from '../../core/wire-values.js';
import type { SandboxLimits } from './quickjs-sandbox.js';
import type { SandboxFunction } from './warm-contexts.js';

/** What a sandbox worker starts with. */
export interface SandboxWorkerData {
  /** Where the worker resolves QuickJS from (the package's own location). */
  readonly resolveFrom: string;
}

export type HostAnswer = { readonly ok: Json } | { readonly err: { readonly code: number; readonly error: string } };

export interface SentReply {
  readonly value: Json;
  readonly status: number;
  readonly headers: Record<string, string>;
}

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
      /** The request as JSON text. */
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
