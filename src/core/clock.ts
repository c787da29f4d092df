/** Source of the current time. Engines never read the system clock themselves. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

/** The real clock. */
export const systemClock: Clock = { now: () => Date.now() };

/**
 * A clock that moves only when told to. For tests: no sleeps, exact window boundaries.
 *
 * @example const clock = new FakeClock(Date.UTC(2026, 0, 1)); clock.advance(60_000);
 */
export class FakeClock implements Clock {
  constructor(private current = Date.UTC(2026, 0, 1)) {}
  now(): number {
    return this.current;
  }
  /** Moves time forward by `ms` milliseconds. */
  advance(ms: number): void {
    this.current += ms;
  }
  set(ms: number): void {
    this.current = ms;
  }
}
