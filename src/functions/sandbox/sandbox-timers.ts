import type { Json } from '../../core/wire-values.js';

/** Longest a function's timer may wait: the runner's timeout ends the invocation first anyway. */
const MAX_TIMER_MS = 60_000;
/** Timers one invocation may have waiting at once. */
const MAX_TIMERS = 1000;

/**
 * A deployed function's `setTimeout` and `setInterval`: each wait is a pending host call resolved by
 * a timer of the worker, so the runtime stays alive while timers wait and is freed with them; a
 * cleared timer's wait ends at once. Bounded in count and length.
 */
export function sandboxTimers() {
  const waiting = new Map<number, { readonly handle: ReturnType<typeof setTimeout>; readonly done: (value: Json) => void }>();
  return {
    wait(ms: number, id: number): Promise<Json> {
      if (waiting.size >= MAX_TIMERS) return Promise.reject({ code: 11005, error: `at most ${MAX_TIMERS} timers may wait at once` });
      const delay = Number.isFinite(ms) ? Math.min(Math.max(0, ms), MAX_TIMER_MS) : 0;
      return new Promise<Json>((resolve) => {
        const done = (value: Json) => {
          waiting.delete(id);
          resolve(value);
        };
        waiting.set(id, { handle: setTimeout(() => done(true), delay), done });
      });
    },
    clear(id: number): void {
      const timer = waiting.get(id);
      if (!timer) return;
      clearTimeout(timer.handle);
      timer.done(false);
    },
    /** Timers waiting now. */
    get size(): number {
      return waiting.size;
    },
    clearAll(): void {
      for (const timer of waiting.values()) clearTimeout(timer.handle);
      waiting.clear();
    },
  };
}

export type SandboxTimers = ReturnType<typeof sandboxTimers>;
