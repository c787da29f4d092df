import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import { Histogram, LATENCY_BOUNDS, quantileMs } from '../../src/metrics/histogram.js';
import { MetricsRegistry } from '../../src/metrics/metrics-registry.js';
import { prometheusText } from '../../src/metrics/prometheus-text.js';
import { parseStrictly, sampleOf } from './prometheus-strict.js';

describe('latency histogram', () => {
  it('puts each observation in the first bucket whose bound holds it, and estimates quantiles within buckets', () => {
    const histogram = new Histogram();
    for (const ms of [0.5, 1, 1.5, 30, 20_000]) histogram.observe(ms);
    expect(histogram.counts.slice(0, 2)).toEqual([2, 1]);
    expect(histogram.counts[5]).toBe(1);
    expect(histogram.counts[LATENCY_BOUNDS.length]).toBe(1);
    expect(histogram.sum).toBeCloseTo(20.033, 6);
    // 5 observations: the median is the third, in (1 ms, 2.5 ms]: linear within the bucket.
    expect(quantileMs(histogram.counts, 0.5)).toBeCloseTo(1 + 1.5 * 0.5, 6);
    // Past the last finite bound: that bound.
    expect(quantileMs(histogram.counts, 0.99)).toBe(10_000);
    expect(quantileMs(new Histogram().counts, 0.5)).toBeNull();
  });

  it('writes label values escaped and leaves out families without samples', () => {
    const registry = new MetricsRegistry(new FakeClock());
    registry.sms('a"pp\\', 'line\nbreak', true);
    const text = prometheusText(registry.apps, []);
    expect(text).toContain('svcbase_sms_total{app="a\\"pp\\\\",template="line\\nbreak",outcome="sent"} 1');
    expect(text).not.toContain('svcbase_http_requests_total');
    expect(sampleOf(parseStrictly(text), 'svcbase_sms_total', { app: 'a"pp\\', template: 'line\nbreak', outcome: 'sent' })).toBe(1);
  });
});
