import { decideSlidingWindows, windowsHorizon } from './sliding-window.js';
import type { CounterStore } from './port.js';

interface Log {
  /** Hit times, ascending. */
  hits: number[];
  /** Longest window seen for this key: older hits are dropped. */
  horizon: number;
}

/**
 * CounterStore in process memory. Single-threaded JavaScript makes `consume` atomic: it runs to
 * completion without awaiting. Keys whose hits all left their longest window are swept
 * incrementally: every `consume` looks at the next `sweepPerCall` keys of a cursor that cycles
 * through the map, so the cost per call stays constant however many keys there are (a full sweep
 * every N hits made every N-th call pay for all keys). For one process only; use the SQLite or a
 * Redis store to share limits between processes.
 */
export function memoryCounterStore(options: { sweepPerCall?: number } = {}): CounterStore & { readonly size: number } {
  const logs = new Map<string, Log>();
  const sweepPerCall = options.sweepPerCall ?? 2;
  let cursor: Iterator<[string, Log]> | undefined;
  const sweepSome = (now: number) => {
    for (let i = 0; i < sweepPerCall; i++) {
      cursor ??= logs.entries();
      const next = cursor.next();
      if (next.done) {
        cursor = undefined;
        return;
      }
      const [key, log] = next.value;
      const last = log.hits[log.hits.length - 1];
      if (last === undefined || last <= now - log.horizon) logs.delete(key);
    }
  };
  return {
    /** Keys currently held (tests check that expired keys are swept). */
    get size() {
      return logs.size;
    },
    consume(key, windows, now) {
      sweepSome(now);
      const horizon = windowsHorizon(windows);
      let log = logs.get(key);
      if (!log) {
        log = { hits: [], horizon };
        logs.set(key, log);
      }
      log.horizon = Math.max(log.horizon, horizon);
      let drop = 0;
      while (drop < log.hits.length && log.hits[drop]! <= now - log.horizon) drop++;
      if (drop > 0) log.hits.splice(0, drop);
      const result = decideSlidingWindows(log.hits, windows, now);
      if (result.allowed) {
        let i = log.hits.length;
        while (i > 0 && log.hits[i - 1]! > now) i--;
        log.hits.splice(i, 0, now);
      }
      return result;
    },
    reset(key) {
      logs.delete(key);
    },
  };
}
