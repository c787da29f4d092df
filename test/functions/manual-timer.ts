import type { FunctionTimer } from '../../src/functions/function-runner.js';

/** A timer the test fires by hand: timeouts without sleeping. */
export function manualTimer(): FunctionTimer & { fireAll(): void; pending(): number } {
  const waiting = new Set<() => void>();
  return {
    setTimeout(callback) {
      waiting.add(callback);
      return () => waiting.delete(callback);
    },
    fireAll() {
      const due = [...waiting];
      waiting.clear();
      for (const callback of due) callback();
    },
    pending: () => waiting.size,
  };
}
