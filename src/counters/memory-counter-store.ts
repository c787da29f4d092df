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
 * completion without awaiting. Keys whose hits all left their longest window are swept lazily, at
 * most once per `sweepEvery` allowed hits. For one process only; use the SQLite or a Redis store to
 * share limits between processes.
 */
export function memoryCounterStore(options: { sweepEvery?: number } = {}): CounterStore {
  const logs = new Map<string, Log>();
  const sweepEvery = options.sweepEvery ?? 1000;
  let writes = 0;
  const sweep = (now: number) => {
    for (const [key, log] of logs) {
      const last = log.hits[log.hits.length - 1];
      if (last === undefined || last <= now - log.horizon) logs.delete(key);
    }
  };
  return {
    consume(key, windows, now) {
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
        if (++writes % sweepEvery === 0) sweep(now);
      }
      return result;
    },
    reset(key) {
      logs.delete(key);
    },
  };
}
