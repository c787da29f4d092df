import { performance } from 'node:perf_hooks';

/**
 * Splits matching work into slices so it never holds the event loop for long: all dispatches share
 * one budget of `sliceMs` per turn of the event loop; a dispatch that finds it spent (`due()`) waits
 * (`pause()`) for a later turn, after the I/O the loop had waiting (an unrelated GET is served
 * between two slices). Paused dispatches resume one per turn, in the order they paused, each with a
 * fresh budget, so no application's dispatch starves another's.
 *
 * Real elapsed time (performance.now), not the injected Clock: it bounds synchronous work that no
 * fake clock can advance, as the storage read budgets do (src/storage/kit/deadline-scan.ts).
 */
export class SliceGate {
  /** When this turn's budget started; null until some work of a new turn asks. */
  private turnStart: number | null = null;
  private readonly waiting: Array<() => void> = [];
  /** A turn marker (setImmediate) is scheduled. */
  private marked = false;

  constructor(private readonly sliceMs: number) {}

  /** Whether this turn's budget is spent (the first ask of a turn starts its budget). */
  due(): boolean {
    const now = performance.now();
    if (this.turnStart === null) {
      this.turnStart = now;
      this.mark();
      return false;
    }
    return now - this.turnStart >= this.sliceMs;
  }

  /** Resolves in a later turn of the event loop, after waiting I/O, with a fresh budget. */
  pause(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.waiting.push(resolve);
      this.mark();
    });
  }

  /** Marks the next check phase of the loop: the turn is over, and one paused dispatch resumes. */
  private mark(): void {
    if (this.marked) return;
    this.marked = true;
    setImmediate(() => {
      this.marked = false;
      this.turnStart = null;
      const next = this.waiting.shift();
      if (!next) return;
      this.turnStart = performance.now();
      this.mark();
      next();
    });
  }
}
