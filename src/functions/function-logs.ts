import type { Clock } from '../core/clock.js';

export interface FunctionLogEntry {
  /** Epoch milliseconds. */
  readonly at: number;
  readonly function: string;
  readonly level: string;
  readonly message: string;
}

/**
 * The log lines of deployed functions (`console.*`, `oLog`), a ring per application bounded in bytes
 * (default 10 MiB): the oldest lines go first. Kept by each instance in its memory.
 */
export class FunctionLogs {
  private readonly rings = new Map<string, { entries: FunctionLogEntry[]; bytes: number }>();

  constructor(
    private readonly clock: Clock,
    private readonly maxBytesPerApp = 10 * 1024 * 1024,
  ) {}

  append(appId: string, fn: string, level: string, message: string): void {
    let ring = this.rings.get(appId);
    if (!ring) this.rings.set(appId, (ring = { entries: [], bytes: 0 }));
    const entry: FunctionLogEntry = { at: this.clock.now(), function: fn, level, message };
    ring.entries.push(entry);
    ring.bytes += sizeOf(entry);
    let drop = 0;
    while (ring.bytes > this.maxBytesPerApp && drop < ring.entries.length) ring.bytes -= sizeOf(ring.entries[drop++]!);
    if (drop > 0) ring.entries.splice(0, drop);
  }

  /** The newest `limit` lines of one function (or of all), newest first. */
  recent(appId: string, fn: string | null, limit: number): FunctionLogEntry[] {
    const entries = this.rings.get(appId)?.entries ?? [];
    const out: FunctionLogEntry[] = [];
    for (let i = entries.length - 1; i >= 0 && out.length < limit; i--) if (fn === null || entries[i]!.function === fn) out.push(entries[i]!);
    return out;
  }
}

const sizeOf = (entry: FunctionLogEntry): number => entry.message.length * 2 + entry.function.length * 2 + 64;
