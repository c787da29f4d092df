/**
 * Runs `tick` every `ms` milliseconds until the returned function is called. Sweeps that enforce
 * deadlines (realtime heartbeats and timeouts, the server's socket limits) take one, together with a
 * Clock: tests pass a manual ticker and move a FakeClock, so no test sleeps to see a timeout.
 */
export interface Ticker {
  every(ms: number, tick: () => void): () => void;
}

/** The default ticker: `setInterval`, unref'd so it never keeps a process alive. */
export const intervalTicker: Ticker = {
  every(ms, tick) {
    const timer = setInterval(tick, ms);
    timer.unref?.();
    return () => clearInterval(timer);
  },
};
