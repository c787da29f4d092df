import { useEffect, useState } from 'preact/hooks';
import { type Api, errorText } from './api.js';
import { Chart, type ChartSeries } from './chart.js';
import { DataTable, Messages } from './parts.js';

interface Sample {
  readonly t: number;
  readonly ms: number;
  readonly requests: Record<string, { count: number; errors: number; serverErrors: number; p50: number | null; p99: number | null }>;
  readonly latency: { p50: number | null; p99: number | null };
  readonly functions: Record<string, { calls: number; errors: number; avgMs: number | null; p50: number | null; p99: number | null }>;
  readonly sms: Record<string, { sent: number; failed: number }>;
  readonly realtime: { events: number; connections: number };
}

interface Gauge {
  readonly labels: Record<string, string>;
  readonly value: number;
}

interface History {
  readonly intervalMs: number;
  readonly samples: Sample[];
  readonly gauges: Record<string, Gauge[]>;
}

const keysOf = (samples: readonly Sample[], pick: (sample: Sample) => Record<string, unknown>) => [...new Set(samples.flatMap((sample) => Object.keys(pick(sample))))].sort();
const perSecond = (count: number, ms: number) => Math.round((count / (ms / 1000)) * 100) / 100;

/**
 * The application's metrics over the last hour on the instance that answers (`GET /1/metrics`, the
 * numbers `/metrics` shows): requests per second and error rate per route group, latency p50/p99,
 * SMS sent per template against the quota, cloud function calls, errors and times, realtime
 * connections and events, and rows per table. Refreshed every few seconds while the page is open.
 */
export function Dashboard(props: { api: Api }) {
  const [history, setHistory] = useState<History | null>(null);
  const [error, setError] = useState('');
  const [live, setLive] = useState(true);
  const load = async () => {
    try {
      setHistory((await props.api.request('GET', '/1/metrics')) as unknown as History);
      setError('');
    } catch (failure) {
      setError(errorText(failure));
    }
  };
  useEffect(() => void load(), []);
  useEffect(() => {
    if (!live || !history) return;
    const timer = setTimeout(() => void load(), Math.min(5000, Math.max(1000, history.intervalMs)));
    return () => clearTimeout(timer);
  }, [history, live]);

  if (!history) return <section class="content">{error ? <Messages error={error} /> : <p>Loading…</p>}</section>;
  const samples = history.samples;
  const x = samples.map((sample) => sample.t / 1000);
  const groups = keysOf(samples, (s) => s.requests);
  const functions = keysOf(samples, (s) => s.functions);
  const templates = keysOf(samples, (s) => s.sms);
  const lines = (names: readonly string[], value: (sample: Sample, name: string) => number | null): ChartSeries[] => names.map((name) => ({ label: name, values: samples.map((sample) => value(sample, name)) }));
  const requestRate = lines(groups, (s, g) => perSecond(s.requests[g]?.count ?? 0, s.ms));
  const errorRate = lines(groups, (s, g) => {
    const r = s.requests[g];
    return r && r.count > 0 ? Math.round((r.errors / r.count) * 1000) / 10 : null;
  });
  const totals = groups.map((group) => ({
    group,
    count: samples.reduce((sum, s) => sum + (s.requests[group]?.count ?? 0), 0),
    errors: samples.reduce((sum, s) => sum + (s.requests[group]?.errors ?? 0), 0),
  }));
  const quotaUsed = history.gauges['svcbase_sms_quota_used']?.[0]?.value;
  const quotaLimit = history.gauges['svcbase_sms_quota_limit']?.[0]?.value;
  const tables = (history.gauges['svcbase_table_rows'] ?? []).map((gauge) => ({ table: gauge.labels['table'] ?? '', rows: gauge.value }));
  const span = samples.length > 0 ? Math.round((samples.at(-1)!.t - samples[0]!.t + samples[0]!.ms) / 60_000) : 0;
  return (
    <section class="content dashboard">
      <div class="title-row">
        <h2>Dashboard</h2>
        <p class="meta">
          This instance, the last {span < 1 ? 'minute' : `${span} minutes`} in {history.intervalMs / 1000} s intervals (the last one still running). Prometheus reads the same counters at /metrics.
        </p>
        <div class="actions">
          <button type="button" aria-pressed={live} onClick={() => setLive(!live)}>
            {live ? 'Pause' : 'Resume'}
          </button>
          <button type="button" onClick={() => void load()}>
            Refresh
          </button>
        </div>
      </div>
      <Messages error={error} />
      <div class="charts">
        <Chart title="Requests per second, by route group" unit="req/s" x={x} series={requestRate} />
        <Chart title="Error rate (4xx and 5xx), by route group" unit="%" x={x} series={errorRate} />
        <Chart
          title="Latency, all routes"
          unit="ms"
          x={x}
          series={[
            { label: 'p50', values: samples.map((s) => s.latency.p50) },
            { label: 'p99', values: samples.map((s) => s.latency.p99) },
          ]}
        />
        <Chart title={`SMS sent per template${quotaUsed === undefined ? '' : `: quota ${quotaUsed} used${quotaLimit === undefined ? ', unlimited' : ` of ${quotaLimit}`}`}`} unit="messages" x={x} series={lines(templates, (s, t) => s.sms[t]?.sent ?? 0)} />
        <Chart title="Cloud function calls per second" unit="calls/s" x={x} series={lines(functions, (s, f) => perSecond(s.functions[f]?.calls ?? 0, s.ms))} />
        <Chart title="Cloud function errors" unit="errors" x={x} series={lines(functions, (s, f) => s.functions[f]?.errors ?? 0)} />
        <Chart title="Cloud function time p99" unit="ms" x={x} series={lines(functions, (s, f) => s.functions[f]?.p99 ?? null)} />
        <Chart
          title="Realtime"
          unit="count"
          x={x}
          series={[
            { label: 'connections', values: samples.map((s) => s.realtime.connections) },
            { label: 'events/s', values: samples.map((s) => perSecond(s.realtime.events, s.ms)) },
          ]}
        />
        <Chart title="Rows per table" unit="rows" x={tables.map((_t, i) => i)} categories={tables.map((t) => t.table)} bars series={[{ label: 'rows', values: tables.map((t) => t.rows) }]} />
      </div>
      <h3>In this window</h3>
      <DataTable columns={['route group', 'requests', 'errors']}>
        {totals.map((total) => (
          <tr>
            <td>{total.group}</td>
            <td>{total.count}</td>
            <td>{total.errors}</td>
          </tr>
        ))}
      </DataTable>
    </section>
  );
}

