import { memoryStorage } from '../../src/storage/memory/index.js';
import { memoryCounterStore } from '../../src/counters/index.js';
import { type Application, type ApplicationConfig, resolveApplication } from '../../src/app/application.js';
import { FakeClock } from '../../src/core/clock.js';
import { silentLogger } from '../../src/core/logger.js';
import { type Random, seededRandom } from '../../src/core/random.js';
import type { Json } from '../../src/core/wire-values.js';
import type { CounterStore } from '../../src/counters/port.js';
import type { RouteContext, RouteResult, ServiceContext } from '../../src/http/types.js';
import { memoryKvStore } from '../../src/kv/memory-kv.js';
import type { KvStore } from '../../src/kv/port.js';
import { memorySmsTransport, type MemorySmsTransport } from '../../src/sms/memory-transport.js';
import { type SmsFeatureOptions, createSmsFeature } from '../../src/sms/sms-feature.js';
import type { SmsTransport } from '../../src/sms/transport.js';

export const PHONE = '13800138000';

export function appConfig(id: string, sms: Record<string, unknown> = {}): ApplicationConfig {
  return {
    applicationId: id,
    restApiKey: `${id}-rest`,
    masterKey: `${id}-master`,
    settings: { sms } as ApplicationConfig['settings'],
  };
}

export interface HarnessOptions extends Partial<Omit<SmsFeatureOptions, 'transport'>> {
  apps?: ApplicationConfig[];
  kv?: KvStore;
  counters?: CounterStore;
  transport?: SmsTransport;
  random?: Random;
}

/** An SMS feature over a fake clock, memory stores and the memory transport; routes callable without HTTP. */
export function smsHarness(options: HarnessOptions = {}) {
  const clock = new FakeClock();
  const apps = new Map<string, Application>();
  for (const config of options.apps ?? [appConfig('app1')]) apps.set(config.applicationId, resolveApplication(config));
  const kv = options.kv ?? memoryKvStore();
  const memory = memorySmsTransport();
  const transport = options.transport ?? memory;
  const ctx: ServiceContext = {
    storage: memoryStorage(),
    kv,
    counters: options.counters ?? memoryCounterStore(),
    clock,
    random: options.random ?? seededRandom(7),
    logger: silentLogger,
    applications: apps,
  };
  const feature = createSmsFeature(ctx, { ...options, transport });
  const app = (id = 'app1') => apps.get(id)!;

  /** Calls a route handler the way the router would (body already parsed). */
  async function call(method: string, path: string, body?: Record<string, Json>, appId = 'app1'): Promise<RouteResult> {
    for (const route of feature.routes) {
      if (route.method !== method) continue;
      const params = match(route.path, path);
      if (!params) continue;
      const rc = { app: app(appId), params, body, method, query: new URLSearchParams() } as unknown as RouteContext;
      return route.handler(rc);
    }
    throw new Error(`no route ${method} ${path}`);
  }
  return { clock, kv, ctx, feature, api: feature.api, app, memory: memory as MemorySmsTransport, call };
}

function match(pattern: string, path: string): Record<string, string> | null {
  const a = pattern.split('/');
  const b = path.split('/');
  if (a.length !== b.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < a.length; i++) {
    if (a[i]!.startsWith(':')) params[a[i]!.slice(1)] = decodeURIComponent(b[i]!);
    else if (a[i] !== b[i]) return null;
  }
  return params;
}

/** A Random whose `int` returns the given values first (to force codes), then seeded values. */
export function scriptedRandom(values: number[]): Random {
  const rest = seededRandom(3);
  return { bytes: (n) => rest.bytes(n), int: (max) => (values.length > 0 ? values.shift()! % max : rest.int(max)) };
}

/** Resolves to the SvcError a promise rejects with (fails the test when it resolves). */
export async function errorOf(promise: Promise<unknown>): Promise<{ code: number; status: number; errorName: string; retryAfter?: number; message: string }> {
  try {
    await promise;
  } catch (error) {
    return error as { code: number; status: number; errorName: string; retryAfter?: number; message: string };
  }
  throw new Error('expected a rejection');
}
