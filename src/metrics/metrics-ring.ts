import type { Clock } from '../core/clock.js';
import type { Json } from '../core/wire-values.js';
import type { GaugeReader, GaugeReading } from './gauge-reader.js';
import { LATENCY_BOUNDS, quantileMs } from './histogram.js';
import type { AppCounters, MetricsRegistry } from './metrics-registry.js';

/** Cumulative values of one series at the last sample: what the next interval is counted from. */
interface Last {
  readonly requests: Map<string, { statuses: number[]; buckets: number[] }>;
  readonly functions: Map<string, { ok: number; failed: number; buckets: number[]; sum: number }>;
  readonly sms: Map<string, { sent: number; failed: number }>;
  realtimeEvents: number;
}

/** What happened in one application during one interval: only the series that moved. */
export interface Interval {
  /** End of the interval, epoch ms. */
  readonly t: number;
  /** Its length in ms. */
  readonly ms: number;
  readonly requests: ReadonlyMap<string, { readonly statuses: readonly number[]; readonly buckets: readonly number[] }>;
  readonly functions: ReadonlyMap<string, { readonly ok: number; readonly failed: number; readonly buckets: readonly number[]; readonly sum: number }>;
  readonly sms: ReadonlyMap<string, { readonly sent: number; readonly failed: number }>;
  readonly realtimeEvents: number;
  /** The sampled gauges' values for the application at the interval's end (realtime connections). */
  readonly gauges: ReadonlyMap<string, number>;
}

const minus = (now: readonly number[], before: readonly number[] | undefined) => now.map((value, i) => value - (before?.[i] ?? 0));
const moved = (values: readonly number[]) => values.some((value) => value !== 0);

/**
 * The bounded in-process history behind the console's charts: every `intervalMs` the registry's
 * counters are compared with the previous sample and what moved is kept, per application, for the
 * last `size` intervals (default 360 × 10 s: an hour). The counters are the ones `/metrics` shows,
 * so a chart and a scrape count the same requests.
 */
export class MetricsRing {
  private readonly rings = new Map<string, Interval[]>();
  private readonly last = new Map<string, Last>();
  private lastAt: number;

  constructor(
    private readonly registry: MetricsRegistry,
    private readonly gauges: GaugeReader,
    private readonly clock: Clock,
    readonly intervalMs: number,
    private readonly size: number,
  ) {
    this.lastAt = clock.now();
  }

  /** Takes a sample: one interval per application, kept. */
  sample(): void {
    const now = this.clock.now();
    const sampled = this.gauges.sampled();
    const apps = new Set([...this.registry.apps.keys(), ...this.rings.keys(), ...appsOf(sampled)]);
    for (const app of apps) {
      const interval = this.diff(app, now, sampled, true);
      let ring = this.rings.get(app);
      if (!ring) this.rings.set(app, (ring = []));
      ring.push(interval);
      if (ring.length > this.size) ring.splice(0, ring.length - this.size);
    }
    this.lastAt = now;
    this.registry.tail.sweep();
  }

  /** The kept intervals of `app`, oldest first, then the one running now (counted up to now, not kept). */
  intervals(app: string): Interval[] {
    return [...(this.rings.get(app) ?? []), this.diff(app, this.clock.now(), this.gauges.sampled(), false)];
  }

  /** `app`'s history as the console draws it (docs/console.md, "Dashboard"). */
  series(app: string, readings: readonly GaugeReading[]): { [key: string]: Json } {
    const current: { [key: string]: Json } = {};
    for (const { source, values } of readings) {
      const mine = values.filter((value) => value.app === app).map((value) => ({ labels: { ...(value.labels ?? {}) }, value: value.value }));
      if (mine.length > 0) current[source.name] = mine;
    }
    return { intervalMs: this.intervalMs, samples: this.intervals(app).map(shown), gauges: current };
  }

  private diff(app: string, now: number, sampled: readonly GaugeReading[], commit: boolean): Interval {
    const counters: AppCounters | undefined = this.registry.apps.get(app);
    let last = this.last.get(app);
    if (!last) {
      last = { requests: new Map(), functions: new Map(), sms: new Map(), realtimeEvents: 0 };
      if (commit) this.last.set(app, last);
    }
    const requests = new Map<string, { statuses: number[]; buckets: number[] }>();
    const functions = new Map<string, { ok: number; failed: number; buckets: number[]; sum: number }>();
    const sms = new Map<string, { sent: number; failed: number }>();
    for (const [group, series] of counters?.requests ?? []) {
      const before = last.requests.get(group);
      const delta = { statuses: minus(series.statuses, before?.statuses), buckets: minus(series.latency.counts, before?.buckets) };
      if (moved(delta.statuses)) requests.set(group, delta);
      if (commit) last.requests.set(group, { statuses: [...series.statuses], buckets: [...series.latency.counts] });
    }
    for (const [name, series] of counters?.functions ?? []) {
      const before = last.functions.get(name);
      const delta = { ok: series.ok - (before?.ok ?? 0), failed: series.failed - (before?.failed ?? 0), buckets: minus(series.duration.counts, before?.buckets), sum: series.duration.sum - (before?.sum ?? 0) };
      if (delta.ok + delta.failed > 0) functions.set(name, delta);
      if (commit) last.functions.set(name, { ok: series.ok, failed: series.failed, buckets: [...series.duration.counts], sum: series.duration.sum });
    }
    for (const [template, series] of counters?.sms ?? []) {
      const before = last.sms.get(template);
      const delta = { sent: series.sent - (before?.sent ?? 0), failed: series.failed - (before?.failed ?? 0) };
      if (delta.sent + delta.failed > 0) sms.set(template, delta);
      if (commit) last.sms.set(template, { sent: series.sent, failed: series.failed });
    }
    const events = (counters?.realtimeEvents ?? 0) - last.realtimeEvents;
    if (commit) last.realtimeEvents = counters?.realtimeEvents ?? 0;
    const gauges = new Map<string, number>();
    for (const { source, values } of sampled) {
      let total = 0;
      let any = false;
      for (const value of values) {
        if (value.app !== app) continue;
        total += value.value;
        any = true;
      }
      if (any) gauges.set(source.name, total);
    }
    return { t: now, ms: Math.max(1, now - this.lastAt), requests, functions, sms, realtimeEvents: events, gauges };
  }
}

function appsOf(readings: readonly GaugeReading[]): string[] {
  return readings.flatMap((reading) => reading.values.map((value) => value.app));
}

const round = (value: number | null) => (value === null ? null : Math.round(value * 100) / 100);

/** One interval as JSON: counts, error counts and p50/p99 per route group and in all, per function, per template. */
function shown(interval: Interval): { [key: string]: Json } {
  const requests: { [key: string]: Json } = {};
  const all = new Array<number>(LATENCY_BOUNDS.length + 1).fill(0);
  for (const [group, delta] of interval.requests) {
    const count = delta.statuses.reduce((sum, n) => sum + n, 0);
    requests[group] = { count, errors: delta.statuses[3]! + delta.statuses[4]!, serverErrors: delta.statuses[4]!, p50: round(quantileMs(delta.buckets, 0.5)), p99: round(quantileMs(delta.buckets, 0.99)) };
    delta.buckets.forEach((n, i) => (all[i]! += n));
  }
  const functions: { [key: string]: Json } = {};
  for (const [name, delta] of interval.functions) {
    const calls = delta.ok + delta.failed;
    functions[name] = { calls, errors: delta.failed, avgMs: round((delta.sum * 1000) / calls), p50: round(quantileMs(delta.buckets, 0.5)), p99: round(quantileMs(delta.buckets, 0.99)) };
  }
  const sms: { [key: string]: Json } = {};
  for (const [template, delta] of interval.sms) sms[template] = { sent: delta.sent, failed: delta.failed };
  return {
    t: interval.t,
    ms: interval.ms,
    requests,
    latency: { p50: round(quantileMs(all, 0.5)), p99: round(quantileMs(all, 0.99)) },
    functions,
    sms,
    realtime: { events: interval.realtimeEvents, connections: interval.gauges.get('svcbase_realtime_connections') ?? 0 },
  };
}
