import type { Clock } from '../core/clock.js';
import type { GaugeSource, MetricsPort } from '../core/metrics.js';
import { AccessTail } from './access-tail.js';
import { Histogram } from './histogram.js';

/** The console's own polling: counted, but not copied into the access log tail it reads. */
const CONSOLE_READS = new Set(['/1/logs/access', '/1/logs/functions', '/1/metrics']);

/** Requests of one route group of one application: a count per status class (1xx..5xx) and their latency. */
export class RequestSeries {
  readonly statuses: number[] = [0, 0, 0, 0, 0];
  readonly latency = new Histogram();
}

/** Invocations of one cloud function: how many ended well or failed, and their durations. */
export class FunctionSeries {
  ok = 0;
  failed = 0;
  readonly duration = new Histogram();
}

/** SMS of one template: handed to the transport, or refused by it. */
export class SmsSeries {
  sent = 0;
  failed = 0;
}

/** Everything counted for one application since the service started. */
export class AppCounters {
  readonly requests = new Map<string, RequestSeries>();
  readonly functions = new Map<string, FunctionSeries>();
  readonly sms = new Map<string, SmsSeries>();
  realtimeEvents = 0;
}

/**
 * The in-process metrics: cumulative counters per application (what `/metrics` shows), the gauge
 * sources the features registered, and the access log tail the console reads. Each report is a map
 * lookup or two and an increment; a series is created on its first report, and its labels are bounded
 * by configuration (applications, route groups, deployed functions, templates).
 */
export class MetricsRegistry implements MetricsPort {
  readonly enabled = true;
  readonly apps = new Map<string, AppCounters>();
  readonly sources = new Set<GaugeSource>();
  readonly tail: AccessTail;

  constructor(clock: Clock) {
    this.tail = new AccessTail(clock);
  }

  of(app: string): AppCounters {
    let counters = this.apps.get(app);
    if (!counters) this.apps.set(app, (counters = new AppCounters()));
    return counters;
  }

  request(app: string, group: string, status: number, ms: number, method: string, path: string): void {
    const requests = this.of(app).requests;
    let series = requests.get(group);
    if (!series) requests.set(group, (series = new RequestSeries()));
    const kind = Math.floor(status / 100) - 1;
    if (kind >= 0 && kind < 5) series.statuses[kind]!++;
    series.latency.observe(ms);
    if (this.tail.watching && !CONSOLE_READS.has(path)) this.tail.add(app, method, path, status, ms);
  }

  functionCall(app: string, name: string, failed: boolean, ms: number): void {
    const functions = this.of(app).functions;
    let series = functions.get(name);
    if (!series) functions.set(name, (series = new FunctionSeries()));
    if (failed) series.failed++;
    else series.ok++;
    series.duration.observe(ms);
  }

  sms(app: string, template: string, sent: boolean): void {
    const sms = this.of(app).sms;
    let series = sms.get(template);
    if (!series) sms.set(template, (series = new SmsSeries()));
    if (sent) series.sent++;
    else series.failed++;
  }

  realtimeEvent(app: string): void {
    this.of(app).realtimeEvents++;
  }

  gauges(source: GaugeSource): () => void {
    this.sources.add(source);
    return () => void this.sources.delete(source);
  }
}
