import type { GaugeReading } from './gauge-reader.js';
import { type Histogram, LATENCY_BOUNDS } from './histogram.js';
import type { AppCounters } from './metrics-registry.js';

const STATUS_CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx'] as const;

/** A label value as the text format writes it: `\`, `"` and newlines escaped. */
const escape = (value: string) => value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
const labels = (pairs: ReadonlyArray<readonly [string, string]>) => `{${pairs.map(([name, value]) => `${name}="${escape(value)}"`).join(',')}}`;
/** A number as the format writes it (integers plainly, `+Inf`, `NaN`). */
const number = (value: number) => (Number.isNaN(value) ? 'NaN' : value === Infinity ? '+Inf' : value === -Infinity ? '-Inf' : String(value));

class Family {
  readonly lines: string[] = [];
  constructor(
    readonly name: string,
    readonly type: 'counter' | 'gauge' | 'histogram',
    readonly help: string,
  ) {}

  sample(pairs: ReadonlyArray<readonly [string, string]>, value: number, suffix = ''): void {
    this.lines.push(`${this.name}${suffix}${labels(pairs)} ${number(value)}`);
  }

  histogram(pairs: ReadonlyArray<readonly [string, string]>, histogram: Histogram): void {
    let cumulative = 0;
    for (let i = 0; i < histogram.counts.length; i++) {
      cumulative += histogram.counts[i]!;
      this.sample([...pairs, ['le', i < LATENCY_BOUNDS.length ? String(LATENCY_BOUNDS[i]) : '+Inf']], cumulative, '_bucket');
    }
    this.sample(pairs, histogram.sum, '_sum');
    this.sample(pairs, cumulative, '_count');
  }

  text(): string {
    return this.lines.length === 0 ? '' : `# HELP ${this.name} ${this.help}\n# TYPE ${this.name} ${this.type}\n${this.lines.join('\n')}\n`;
  }
}

/**
 * The Prometheus text exposition format (version 0.0.4) of the given applications' counters and
 * gauges: one `# HELP` and `# TYPE` per family, then its samples; families without samples are left out.
 */
export function prometheusText(apps: ReadonlyMap<string, AppCounters>, gauges: readonly GaugeReading[], only?: string): string {
  const requests = new Family('svcbase_http_requests_total', 'counter', 'Requests answered, by application, route group and status class.');
  const latency = new Family('svcbase_http_request_duration_seconds', 'histogram', 'Time from a request arriving to its answer, by application and route group.');
  const calls = new Family('svcbase_function_calls_total', 'counter', 'Cloud function invocations that ended, by application, function and outcome.');
  const durations = new Family('svcbase_function_duration_seconds', 'histogram', 'Cloud function invocation times, by application and function.');
  const sms = new Family('svcbase_sms_total', 'counter', 'SMS handed to the transport (sent) or refused by it (failed), by application and template.');
  const events = new Family('svcbase_realtime_events_total', 'counter', 'Realtime events delivered to subscriptions, by application.');
  for (const [app, counters] of apps) {
    if (only !== undefined && app !== only) continue;
    for (const [group, series] of counters.requests) {
      series.statuses.forEach((count, i) => count > 0 && requests.sample([['app', app], ['group', group], ['code', STATUS_CLASSES[i]!]], count));
      latency.histogram([['app', app], ['group', group]], series.latency);
    }
    for (const [name, series] of counters.functions) {
      calls.sample([['app', app], ['function', name], ['outcome', 'ok']], series.ok);
      calls.sample([['app', app], ['function', name], ['outcome', 'error']], series.failed);
      durations.histogram([['app', app], ['function', name]], series.duration);
    }
    for (const [template, series] of counters.sms) {
      sms.sample([['app', app], ['template', template], ['outcome', 'sent']], series.sent);
      sms.sample([['app', app], ['template', template], ['outcome', 'failed']], series.failed);
    }
    if (counters.realtimeEvents > 0) events.sample([['app', app]], counters.realtimeEvents);
  }
  const families = [requests, latency, calls, durations, sms, events];
  const byName = new Map<string, Family>();
  for (const { source, values } of gauges) {
    let family = byName.get(source.name);
    if (!family) byName.set(source.name, (family = new Family(source.name, 'gauge', source.help)));
    for (const value of values) {
      if (only !== undefined && value.app !== only) continue;
      family.sample([['app', value.app], ...Object.entries(value.labels ?? {})], value.value);
    }
  }
  return [...families, ...byName.values()].map((family) => family.text()).join('');
}
