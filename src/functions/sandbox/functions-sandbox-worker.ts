/**
 * A worker thread running deployed cloud functions in QuickJS, one invocation at a time, so a busy or
 * memory-hungry function never holds the main thread's event loop. Speaks the messages of
 * sandbox-protocol.ts with the pool (sandbox-pool.ts); module calls go to the main thread, where the
 * function's caller, services and rules are.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { type HostAnswer, type SandboxWorkerData, type ToPool, type ToWorker, WORKER_SOURCES } from './sandbox-protocol.js';
import type { QuickJSWASMModule } from 'quickjs-emscripten-core';
import { loadQuickJs, wasmMemoryBytes } from './quickjs-sandbox.js';
import { heapGuardOf } from './quickjs-instance.js';
import { sandboxRequestOfText } from './sandbox-request.js';
import { type SandboxFunction, WarmContexts } from './warm-contexts.js';
import { sandboxPackages } from '../sandbox-libraries.js';
import { lowerThisWorkerThread } from '../../core/background-priority.js';

/** A run message with its function resolved when it arrived (null: the worker did not have its source). */
type RunMessage = Omit<Extract<ToWorker, { type: 'run' }>, 'fn'> & { readonly fn: SandboxFunction | null };

/**
 * Past this much wasm memory (it never shrinks) the worker retires once idle. A function's heap is
 * held to its cap by measuring, but a few large allocations between two measures can still grow it.
 */
const RETIRE_AT_BYTES = 256 * 1024 * 1024;

const port = parentPort!;
const data = workerData as SandboxWorkerData;
// A busy function yields the cores to the event loop that answers everyone (background-priority.ts).
lowerThisWorkerThread(data.niceness);
/** Messages of one turn go out together (an invocation's send and idle, say): one wake-up of the main thread. */
let outbox: ToPool[] = [];
const post = (message: ToPool) => {
  outbox.push(message);
  if (outbox.length === 1) queueMicrotask(flush);
};
function flush(): void {
  const batch = outbox;
  outbox = [];
  port.postMessage(JSON.stringify(batch));
}
const waiting = new Map<number, (answer: HostAnswer) => void>();
let nextCall = 1;

let contexts: WarmContexts | null = null;
let quickjs: QuickJSWASMModule | null = null;
let retired = false;
/** Run messages in arrival order; the first is running. */
const queued: RunMessage[] = [];
/**
 * The latest source of each keyed function, least recently run first: the pool sends it once per
 * version and tracks the same `WORKER_SOURCES` keys in the same order (sandbox-pool.ts).
 */
const sources = new Map<string, { readonly version: number; readonly source: string }>();

/** The run message's function with its source: as sent, or as sent before for this key and version. */
function functionOf(fn: Extract<ToWorker, { type: 'run' }>['fn']): SandboxFunction | null {
  if (fn.key === null) return fn.source === undefined ? null : { key: null, version: fn.version, source: fn.source };
  const known = sources.get(fn.key);
  sources.delete(fn.key);
  if (fn.source !== undefined) {
    sources.set(fn.key, { version: fn.version, source: fn.source });
    if (sources.size > WORKER_SOURCES) sources.delete(sources.keys().next().value as string);
    return { key: fn.key, version: fn.version, source: fn.source };
  }
  if (!known) return null;
  sources.set(fn.key, known);
  return known.version === fn.version ? { key: fn.key, version: fn.version, source: known.source } : null;
}

port.on('message', (text: string) => {
  const message = JSON.parse(text) as ToWorker;
  if (message.type === 'answer') {
    waiting.get(message.callId)?.(message.answer);
    waiting.delete(message.callId);
    return;
  }
  queued.push({ ...message, fn: functionOf(message.fn) });
  if (queued.length === 1) runNext();
});

/** Runs the oldest queued invocation; the next starts once it is idle. */
function runNext(): void {
  const message = queued[0];
  if (!message || !contexts || retired) return;
  const { id, fn } = message;
  if (!fn) {
    // Not reachable while the pool tracks what it sent; failing beats running the wrong text.
    post({ type: 'fail', id, message: 'the sandbox lost the source of this function', cpu: false });
    post({ type: 'idle', id });
    queued.shift();
    if (queued.length > 0) setImmediate(runNext);
    return;
  }
  // The invocation may grow the heap by its cap, no more: every allocation counts, typed arrays too.
  const heap = quickjs ? heapGuardOf(quickjs) : null;
  heap?.allow(message.limits.memoryBytes);
  contexts.invoke(fn, sandboxRequestOfText(message.requestText), message.limits, {
    call: (module, method, args) =>
      new Promise((resolve, reject) => {
        const callId = nextCall++;
        waiting.set(callId, (answer) => ('ok' in answer ? resolve(answer.ok) : reject(answer.err)));
        post({ type: 'call', id, callId, module, method, args });
      }),
    setHeader: (headers) => post({ type: 'setHeader', id, headers }),
    log: (level, text) => post({ type: 'log', id, level, message: text }),
    send: (reply) => post({ type: 'send', id, reply }),
    fail: (text, cpu) => post({ type: 'fail', id, message: text, cpu }),
    idle: () => {
      heap?.release();
      post({ type: 'idle', id });
      queued.shift();
      if (quickjs && (wasmMemoryBytes(quickjs) ?? 0) > RETIRE_AT_BYTES) {
        retired = true;
        return post({ type: 'retire' });
      }
      // Not from inside the finished invocation's stack.
      if (queued.length > 0) setImmediate(runNext);
    },
  });
}
// No top-level await: the worker is also built as CommonJS. The pool sends nothing before 'ready'.
loadQuickJs(data.resolveFrom).then(
  (loaded) => {
    quickjs = loaded;
    contexts = new WarmContexts(loaded, sandboxPackages(data.resolveFrom));
    runNext();
    post({ type: 'ready' });
  },
  (error: unknown) => post({ type: 'broken', message: error instanceof Error ? error.message : String(error) }),
);
