import type { Clock } from '../core/clock.js';

/** One request as the console's live access log shows it. */
export interface AccessLine {
  /** Increasing: a reader asks for the lines after the last it has. */
  readonly seq: number;
  /** Epoch ms when it was answered. */
  readonly at: number;
  readonly method: string;
  /** Without the query string; a secret key in it masked (as the access log writes it). */
  readonly path: string;
  readonly status: number;
  readonly ms: number;
}

interface Tail {
  readonly lines: AccessLine[];
  until: number;
}

/**
 * The newest requests of each application, kept only while someone reads them: reading an
 * application's tail keeps it for `watchMs` more (default 60 s), after which its lines are dropped
 * and requests are not copied any more. At most `max` lines per application (default 500).
 */
export class AccessTail {
  private readonly tails = new Map<string, Tail>();
  /** One sequence for every application, never reset: a reader's `after` stays meaningful across a pause. */
  private seq = 0;

  constructor(
    private readonly clock: Clock,
    private readonly watchMs = 60_000,
    private readonly max = 500,
  ) {}

  /** Whether any application's tail is kept (the handler's only check when nobody reads). */
  get watching(): boolean {
    return this.tails.size > 0;
  }

  add(app: string, method: string, path: string, status: number, ms: number): void {
    const tail = this.tails.get(app);
    if (!tail) return;
    const at = this.clock.now();
    if (at > tail.until) {
      this.tails.delete(app);
      return;
    }
    tail.lines.push({ seq: ++this.seq, at, method, path, status, ms: Math.round(ms * 10) / 10 });
    if (tail.lines.length > this.max) tail.lines.splice(0, tail.lines.length - this.max);
  }

  /** The lines of `app` after `after` (oldest first), and keeps its tail for another `watchMs`. */
  read(app: string, after: number): AccessLine[] {
    const until = this.clock.now() + this.watchMs;
    let tail = this.tails.get(app);
    if (!tail) this.tails.set(app, (tail = { lines: [], until }));
    tail.until = until;
    return tail.lines.filter((line) => line.seq > after);
  }

  /** Drops the tails nobody read for `watchMs` (the sampler calls it). */
  sweep(): void {
    const now = this.clock.now();
    for (const [app, tail] of this.tails) if (now > tail.until) this.tails.delete(app);
  }
}
