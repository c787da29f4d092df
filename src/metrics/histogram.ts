/** Upper bounds of the latency buckets, in seconds (Prometheus' `le`); the last bucket is `+Inf`. */
export const LATENCY_BOUNDS: readonly number[] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * A latency histogram: a count per bucket (not cumulative; the last is past every bound) and the sum
 * of the observations in seconds. Observing is a scan of 13 bounds and two additions.
 */
export class Histogram {
  readonly counts: number[] = new Array<number>(LATENCY_BOUNDS.length + 1).fill(0);
  sum = 0;

  observe(ms: number): void {
    const seconds = ms / 1000;
    let i = 0;
    while (i < LATENCY_BOUNDS.length && seconds > LATENCY_BOUNDS[i]!) i++;
    this.counts[i]!++;
    this.sum += seconds;
  }
}

/**
 * The `q` quantile (0..1) of bucket counts, in ms, estimated as Prometheus' `histogram_quantile`
 * does: linear within the bucket that holds it, the highest finite bound when it falls past the
 * last. Null when there is no observation.
 */
export function quantileMs(counts: readonly number[], q: number): number | null {
  let total = 0;
  for (const count of counts) total += count;
  if (total === 0) return null;
  const rank = q * total;
  let seen = 0;
  for (let i = 0; i < counts.length; i++) {
    const count = counts[i]!;
    if (seen + count >= rank && count > 0) {
      if (i >= LATENCY_BOUNDS.length) return LATENCY_BOUNDS[LATENCY_BOUNDS.length - 1]! * 1000;
      const lower = i === 0 ? 0 : LATENCY_BOUNDS[i - 1]!;
      const upper = LATENCY_BOUNDS[i]!;
      return (lower + (upper - lower) * ((rank - seen) / count)) * 1000;
    }
    seen += count;
  }
  return LATENCY_BOUNDS[LATENCY_BOUNDS.length - 1]! * 1000;
}
