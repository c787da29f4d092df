/** After a run had to go to a worker, that many of the function's next invocations go there directly (doubling, at most this). */
export const MAX_BACKOFF = 1024;
/** Functions whose backoff is remembered; past it the oldest is forgotten. */
const MAX_TRACKED = 4096;
/** The first wait after a move, and the shortest a counted run brings it back to. */
const FIRST_BACKOFF = 8;

/**
 * How long each function skips inline attempts (QuickJS inline, isolated-vm): after a run had to
 * move to a worker, its next `FIRST_BACKOFF` invocations go there directly, doubling after each
 * further move up to `MAX_BACKOFF`, halving after each run that counted. Keyed by function and
 * version: a redeploy starts afresh.
 */
export class InlineBackoff {
  private readonly waits = new Map<string, { version: number; skip: number; next: number }>();

  /** True (and one skip used) when this invocation of `key` goes to a worker without an attempt. */
  skips(key: string, version: number): boolean {
    const state = this.waits.get(key);
    if (!state || state.version !== version || state.skip === 0) return false;
    state.skip--;
    return true;
  }

  /** An attempt of `key` had to move to a worker. */
  moved(key: string, version: number): void {
    const state = this.waits.get(key);
    const next = state && state.version === version ? Math.min(MAX_BACKOFF, state.next * 2) : FIRST_BACKOFF;
    this.remember(key, { version, skip: next, next });
  }

  /** An attempt of `key` counted. */
  counted(key: string): void {
    const state = this.waits.get(key);
    if (state) state.next = Math.max(FIRST_BACKOFF, state.next >> 1);
  }

  /** This version of `key` skips the next `skip` invocations (`Infinity`: never runs inline again). */
  hold(key: string, version: number, skip: number): void {
    this.remember(key, { version, skip, next: MAX_BACKOFF });
  }

  private remember(key: string, state: { version: number; skip: number; next: number }): void {
    this.waits.delete(key);
    this.waits.set(key, state);
    if (this.waits.size > MAX_TRACKED) this.waits.delete(this.waits.keys().next().value as string);
  }
}
