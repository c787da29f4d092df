/**
 * A FIFO gate for adapters whose operations are synchronous but whose transactions are not: while an
 * exclusive section (a `transaction(work)`) is open, every other operation waits its turn; otherwise
 * operations run immediately and synchronously. Shared by the memory and SQLite adapters (one
 * better-sqlite3 connection would otherwise mix other callers' statements into an open transaction).
 */
export class ExclusiveGate {
  private locked = false;
  private readonly waiters: Array<() => void> = [];

  /** Whether an exclusive section is open or waiting. */
  get busy(): boolean {
    return this.locked;
  }

  /**
   * Runs a synchronous operation: now (returning its value) when the gate is free, else after every
   * section queued before it (returning a promise).
   */
  run<T>(fn: () => T): T | Promise<T> {
    if (!this.locked) return fn();
    return this.acquire().then(() => {
      try {
        return fn();
      } finally {
        this.release();
      }
    });
  }

  /** Runs `work` alone: no operation submitted through `run` interleaves with it. */
  async exclusive<T>(work: () => Promise<T>): Promise<T> {
    await this.acquire();
    try {
      return await work();
    } finally {
      this.release();
    }
  }

  private acquire(): Promise<void> {
    if (!this.locked) {
      this.locked = true;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private release(): void {
    const next = this.waiters.shift();
    if (next) next();
    else this.locked = false;
  }
}
