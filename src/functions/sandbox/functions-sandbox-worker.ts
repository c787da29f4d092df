/**
 * A worker thread running deployed cloud functions in QuickJS, one invocation at a time, so a busy or
 * memory-hungry function never holds the main thread's event loop. Speaks the messages of
 * sandbox-protocol.ts with the pool (sandbox-pool.ts); module calls go to the main thread, where the
 * function's caller, services and rules are.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { HostAnswer, SandboxWorkerData, ToPool, ToWorker } from './sandbox-protocol.js';
import { loadQuickJs } from './quickjs-sandbox.js';
import { WarmContexts } from './warm-contexts.js';

const port = parentPort!;
const data = workerData as SandboxWorkerData;
const post = (message: ToPool) => port.postMessage(message);
const waiting = new Map<number, (answer: HostAnswer) => void>();
let nextCall = 1;

let contexts: WarmContexts | null = null;

port.on('message', (message: ToWorker) => {
  if (message.type === 'answer') {
    waiting.get(message.callId)?.(message.answer);
    waiting.delete(message.callId);
    return;
  }
  if (!contexts) return;
  const { id } = message;
  contexts.invoke(message.fn, message.request, message.limits, {
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
    idle: () => post({ type: 'idle', id }),
  });
});
// No top-level await: the worker is also built as CommonJS. The pool sends nothing before 'ready'.
loadQuickJs(data.resolveFrom).then(
  (loaded) => {
    contexts = new WarmContexts(loaded);
    post({ type: 'ready' });
  },
  (error: unknown) => post({ type: 'broken', message: error instanceof Error ? error.message : String(error) }),
);
