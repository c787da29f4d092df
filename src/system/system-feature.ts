import { formatDateTime } from '../core/time.js';
import type { Json } from '../core/wire-values.js';
import type { Feature, FeatureDefinition, ServiceContext } from '../features/contract.js';

/** The table a readiness probe reads (never created: a schema lookup of a missing table is a query). */
const PROBE = { namespace: 'svchealth', className: 'Probe' };

/** Runs a readiness check; a failure or a hang past `ms` marks it down (named, never with detail). */
async function check(work: () => unknown, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hang = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
    timer.unref?.();
  });
  try {
    return await Promise.race([Promise.resolve().then(work).then(() => true, () => false), hang]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Service-level routes that belong to no other feature: `GET /1/timestamp`; `GET /health` (liveness:
 * the process answers) and `GET /ready` (the storage and the key-value and counter stores answer
 * within 2 s), both without credentials, for load balancers and orchestrators. `/ready` answers 503
 * when a store is down (an operations route, not an SDK one: the 4xx rule of PROTOCOL decision 3
 * does not apply) and names only which part is down.
 */
const READY = {
  type: 'object',
  required: ['status', 'storage', 'kv', 'counters'],
  properties: { status: { enum: ['ready', 'unavailable'] }, storage: { type: 'boolean' }, kv: { type: 'boolean' }, counters: { type: 'boolean' } },
};

export function createSystemFeature(ctx: ServiceContext): Feature {
  return {
    name: 'system',
    routes: [
      {
        method: 'GET',
        path: '/health',
        auth: 'none',
        body: 'none',
        summary: 'Liveness: the process answers',
        responses: { 200: { type: 'object', required: ['status'], properties: { status: { const: 'ok' } } } },
        handler: () => ({ body: { status: 'ok' } }),
      },
      {
        method: 'GET',
        path: '/1/appSettings',
        auth: 'master',
        body: 'none',
        summary: "The application's effective settings (features, query limits, SMS templates and quota, users, captcha, schema); no keys",
        responses: { 200: { type: 'object', required: ['applicationId', 'settings'], properties: { applicationId: { type: 'string' }, settings: { type: 'object', required: ['timeZone', 'features', 'query', 'sms', 'users', 'captcha', 'schema'] } } } },
        handler: (rc) => ({ body: { applicationId: rc.caller.app.applicationId, settings: rc.caller.app.settings as unknown as Json } }),
      },
      {
        method: 'GET',
        path: '/ready',
        auth: 'none',
        body: 'none',
        summary: 'Readiness: the storage and the key-value and counter stores answer',
        responses: { 200: READY, 503: READY },
        handler: async () => {
          const now = ctx.clock.now();
          const [storage, kv, counters] = await Promise.all([
            check(() => ctx.storage.getSchema(PROBE), 2000),
            check(() => ctx.kv.get('svc:ready', now), 2000),
            check(() => ctx.counters.reset('svc:ready'), 2000),
          ]);
          const ready = storage && kv && counters;
          return { status: ready ? 200 : 503, body: { status: ready ? 'ready' : 'unavailable', storage, kv, counters } };
        },
      },
      {
        method: 'GET',
        path: '/1/timestamp',
        auth: 'app',
        body: 'none',
        summary: "The server's time",
        responses: { 200: { type: 'object', required: ['timestamp', 'datetime'], properties: { timestamp: { type: 'integer' }, datetime: { type: 'string' } } } },
        handler: (route) => {
          const now = ctx.clock.now();
          return { body: { timestamp: Math.floor(now / 1000), datetime: formatDateTime(now, route.app.settings.timeZone) } };
        },
      },
    ],
  };
}

/** The system routes as a feature definition (every service lists it). */
export function systemFeature(): FeatureDefinition {
  return { id: 'system', init: (ctx) => ({ routes: createSystemFeature(ctx).routes }) };
}
