import type { Clock } from '../core/clock.js';
import type { GaugeSource, GaugeValue } from '../core/metrics.js';
import type { Logger } from '../core/logger.js';

/** A gauge source's values as last read. */
export interface GaugeReading {
  readonly source: GaugeSource;
  readonly values: readonly GaugeValue[];
}

/**
 * Reads the gauge sources that are not sampled (storage sizes, SMS quotas) when `/metrics` or the
 * console asks, at most once per `reuseMs` (default 15 s: a dashboard and a scraper asking together
 * cost one read), sharing a read in flight. A source that fails or is slower than `timeoutMs`
 * (default 5 s) is left out of that reading and logged.
 */
export class GaugeReader {
  private last: { at: number; readings: GaugeReading[] } | undefined;
  private pending: Promise<GaugeReading[]> | undefined;

  constructor(
    private readonly sources: ReadonlySet<GaugeSource>,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly reuseMs = 15_000,
    private readonly timeoutMs = 5_000,
  ) {}

  /** Values of the sampled sources, read now (they are in memory). */
  sampled(): GaugeReading[] {
    const readings: GaugeReading[] = [];
    for (const source of this.sources) {
      if (!source.sampled) continue;
      const values = source.read();
      if (!(values instanceof Promise)) readings.push({ source, values });
    }
    return readings;
  }

  /** Values of the other sources, from the last reading when it is recent enough. */
  async read(): Promise<GaugeReading[]> {
    if (this.last && this.clock.now() - this.last.at < this.reuseMs) return this.last.readings;
    this.pending ??= this.readAll().finally(() => (this.pending = undefined));
    return this.pending;
  }

  private async readAll(): Promise<GaugeReading[]> {
    const readings: GaugeReading[] = [];
    for (const source of this.sources) {
      if (source.sampled) continue;
      let timer: ReturnType<typeof setTimeout> | undefined;
      try {
        const values = await Promise.race([
          Promise.resolve(source.read()),
          new Promise<never>((_resolve, reject) => {
            timer = setTimeout(() => reject(new Error(`no answer in ${this.timeoutMs} ms`)), this.timeoutMs);
            timer.unref?.();
          }),
        ]);
        readings.push({ source, values });
      } catch (error) {
        this.logger.warn('metrics: a gauge could not be read', { gauge: source.name, error: error instanceof Error ? error.message : String(error) });
      } finally {
        clearTimeout(timer);
      }
    }
    this.last = { at: this.clock.now(), readings };
    return readings;
  }
}
