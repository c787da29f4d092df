import type { Clock } from '../core/clock.js';
import { configError, svcError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import { type Ticker, intervalTicker } from '../core/ticker.js';
import { formatDateTime } from '../core/time.js';
import type { FeatureDefinition } from '../features/contract.js';
import type { RouteDef } from '../features/routes.js';
import type { Application } from '../app/application.js';
import { GaugeReader } from './gauge-reader.js';
import { MetricsRegistry } from './metrics-registry.js';
import { MetricsRing } from './metrics-ring.js';
import { prometheusText } from './prometheus-text.js';
import { tableRowsGauge } from './table-rows-gauge.js';

export interface MetricsOptions {
  /**
   * The operator's scrape token: with it, `GET <path>` (default `/metrics`) answers every
   * application's metrics to `Authorization: Bearer <token>` (Prometheus' `authorization` or
   * `bearer_token_file`), and 401 to anything else. Without it that route is not served; each
   * application's own metrics stay at `GET /1/metrics?format=prometheus` with its master key.
   */
  readonly token?: string;
  /** Where the token route is served under the mount (default `/metrics`). */
  readonly path?: string;
  /** Length of one interval of the console's history, in ms (default 10 000). */
  readonly intervalMs?: number;
  /** Intervals kept per application (default 360: an hour of 10 s intervals). */
  readonly samples?: number;
  /** Schedules the samples (default `setInterval`, unref'd); tests pass a manual one. */
  readonly ticker?: Ticker;
}

const PATH = /^\/[A-Za-z0-9_-]+(\/[A-Za-z0-9_-]+)*$/;
const PROMETHEUS_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** The registry and history a service keeps when its metrics are read (the console, `/metrics`). */
export interface ServiceMetrics {
  readonly registry: MetricsRegistry;
  readonly definition: FeatureDefinition;
}

/**
 * The metrics feature (docs/console.md, "Metrics"): the registry every hook reports to, its
 * in-process history (sampled every `intervalMs`), `GET /1/metrics` (an application's history as
 * JSON for the console, or its Prometheus text with `?format=prometheus`; master key),
 * `GET /1/logs/access` (the application's newest requests, kept while read; master key) and, with a
 * token, `GET /metrics` (every application's Prometheus text).
 */
export function createServiceMetrics(options: MetricsOptions, clock: Clock): ServiceMetrics {
  const path = options.path ?? '/metrics';
  if (!PATH.test(path)) throw configError('metrics', `metrics path '${path.slice(0, 64)}' must look like /metrics`);
  if (options.token !== undefined && (typeof options.token !== 'string' || options.token.length < 16)) throw configError('metrics', 'metrics.token must be a string of at least 16 characters');
  const intervalMs = options.intervalMs ?? 10_000;
  const samples = options.samples ?? 360;
  if (!Number.isSafeInteger(intervalMs) || intervalMs < 100) throw configError('metrics', 'metrics.intervalMs must be an integer of at least 100');
  if (!Number.isSafeInteger(samples) || samples < 1 || samples > 100_000) throw configError('metrics', 'metrics.samples must be an integer from 1 to 100000');
  const registry = new MetricsRegistry(clock);
  return {
    registry,
    definition: {
      id: 'metrics',
      init(ctx) {
        const removeRows = registry.gauges(tableRowsGauge(ctx.storage, ctx.applications));
        const reader = new GaugeReader(registry.sources, clock, ctx.logger);
        const ring = new MetricsRing(registry, reader, clock, intervalMs, samples);
        const stop = (options.ticker ?? intervalTicker).every(intervalMs, () => sampleSafely(ring, ctx.logger));
        return {
          routes: metricsRoutes({ registry, ring, reader, path, token: options.token }),
          close() {
            stop();
            removeRows();
          },
        };
      },
    },
  };
}

function sampleSafely(ring: MetricsRing, logger: Logger): void {
  try {
    ring.sample();
  } catch (error) {
    logger.error('metrics: a sample failed', { error: error instanceof Error ? error.message : String(error) });
  }
}

interface RouteDeps {
  readonly registry: MetricsRegistry;
  readonly ring: MetricsRing;
  readonly reader: GaugeReader;
  readonly path: string;
  readonly token: string | undefined;
}

const shown = (app: Application, ms: number) => formatDateTime(ms, app.settings.timeZone);

function metricsRoutes(deps: RouteDeps): RouteDef[] {
  const { registry, ring, reader } = deps;
  const routes: RouteDef[] = [
    {
      method: 'GET',
      path: '/1/metrics',
      auth: 'master',
      body: 'none',
      summary: "The application's metrics on the instance that answers: its history as JSON (the console's dashboard), or its Prometheus text with `?format=prometheus`",
      handler: async (rc) => {
        const app = rc.caller.app.applicationId;
        const format = rc.query.get('format') ?? 'json';
        if (format === 'prometheus') return { raw: true, body: prometheusText(registry.apps, [...reader.sampled(), ...(await reader.read())], app), headers: { 'content-type': PROMETHEUS_TYPE } };
        if (format !== 'json') throw svcError('invalidParameter', "format must be 'json' or 'prometheus'");
        const readings = [...reader.sampled(), ...(await reader.read())];
        return { body: ring.series(app, readings) };
      },
    },
    {
      method: 'GET',
      path: '/1/logs/access',
      auth: 'master',
      body: 'none',
      summary: "The application's newest requests on the instance that answers (kept while someone reads them: a minute after the last read they are no longer copied), after `after`",
      handler: (rc) => {
        const after = Number(rc.query.get('after') ?? 0);
        if (!Number.isSafeInteger(after) || after < 0) throw svcError('invalidParameter', 'after must be a non-negative integer');
        const lines = registry.tail.read(rc.caller.app.applicationId, after);
        return { body: { results: lines.map((line) => ({ ...line, at: shown(rc.caller.app, line.at) })) } };
      },
    },
  ];
  if (deps.token !== undefined) {
    routes.push({
      method: 'GET',
      path: deps.path,
      auth: 'bearer',
      bearerToken: deps.token,
      body: 'none',
      summary: "Every application's metrics in the Prometheus text format (`Authorization: Bearer <metrics.token>`)",
      handler: async () => ({ raw: true, body: prometheusText(registry.apps, [...reader.sampled(), ...(await reader.read())]), headers: { 'content-type': PROMETHEUS_TYPE } }),
    });
  }
  return routes;
}

