import type { Application } from '../app/application.js';
import { svcError } from '../core/errors.js';
import type { Feature, ServiceContext, FeatureContext, FeatureDefinition, FeatureInstance, FeatureKey, FeatureSettings } from './contract.js';
import type { WriteHookRegistry } from '../events/write-hook-types.js';
import { orderFeatures } from './order.js';

/** Wraps a factory as a definition (`host-1`, `host-2`, ... in declaration order). */
export function legacyFeature<R>(factory: (ctx: ServiceContext, registry: R) => Feature, index: number, registry: R): FeatureDefinition {
  return {
    id: `host-${index + 1}`,
    init(ctx) {
      const feature = factory(serviceContextOf(ctx), registry);
      return { routes: feature.routes, upgrades: feature.upgrades, close: feature.close ? () => feature.close?.() : undefined };
    },
  };
}

/** The published APIs of one service, by feature id. */
export type PublishedApis = Map<string, unknown>;

/** A started feature: its id and what init returned. */
export interface StartedFeature {
  readonly id: string;
  readonly instance: FeatureInstance;
}

export interface ComposeInput {
  readonly definitions: readonly FeatureDefinition[];
  readonly context: ServiceContext;
  readonly hooks: WriteHookRegistry;
  /** Where APIs are published by feature id (the registry view reads it). */
  readonly apis: PublishedApis;
  /** Each application's raw feature slices (`ApplicationConfig.featureSettings`), by application id. */
  readonly slices: ReadonlyMap<string, { readonly [featureId: string]: unknown } | undefined>;
}

/** Closes started features, last started first. */
export async function closeStarted(started: readonly StartedFeature[]): Promise<void> {
  for (const feature of [...started].reverse()) await feature.instance.close?.();
}

/**
 * Orders the definitions by `requires` and starts each: resolves its settings for every application
 * (11116 when refused), calls `init` with a context that can reach the APIs published before it, and
 * publishes its API under its id. If an init throws, the features already started are closed.
 */
export function composeFeatures(input: ComposeInput): StartedFeature[] {
  const started: StartedFeature[] = [];
  try {
    for (const definition of orderFeatures(input.definitions)) {
      const settings = resolveSettings(definition, input);
      const ctx = featureContext(definition.id, input, settings);
      const instance = definition.init(ctx);
      if (instance.api !== undefined) input.apis.set(definition.id, instance.api);
      started.push({ id: definition.id, instance });
    }
  } catch (error) {
    void closeStarted(started).catch(() => undefined);
    throw error;
  }
  return started;
}

function featureContext(id: string, input: ComposeInput, settings: ReadonlyMap<string, unknown>): FeatureContext {
  const find = <Api>(key: FeatureKey<Api>): Api | undefined => input.apis.get(key.id) as Api | undefined;
  return {
    ...input.context,
    hooks: input.hooks,
    find,
    use<Api>(key: FeatureKey<Api>): Api {
      const api = find(key);
      if (api === undefined) throw svcError('featureNotFound', key.id);
      return api;
    },
    settings(app: Application): unknown {
      if (!settings.has(app.applicationId)) throw new Error(`[svcbase] [features] '${id}': application '${app.applicationId}' is not in this service`);
      return settings.get(app.applicationId);
    },
  };
}

/** Each application's settings of one feature: its slice resolved over the defaults (undefined without a settings declaration). */
function resolveSettings(definition: FeatureDefinition, input: ComposeInput): Map<string, unknown> {
  const out = new Map<string, unknown>();
  const declared = definition.settings as FeatureSettings<unknown> | undefined;
  for (const [appId, slices] of input.slices) {
    const given = slices !== undefined && Object.hasOwn(slices, definition.id) ? slices[definition.id] : undefined;
    if (!declared) {
      if (given !== undefined) throw svcError('featureSettingsInvalid', appId, definition.id, 'this feature declares no settings');
      out.set(appId, undefined);
      continue;
    }
    try {
      const resolved = declared.resolve ? declared.resolve(given, declared.defaults) : shallowMerge(given, declared.defaults);
      out.set(appId, Object.freeze(resolved));
    } catch (error) {
      if (error instanceof Error && error.name === 'SvcError') throw error;
      throw svcError('featureSettingsInvalid', appId, definition.id, error instanceof Error ? error.message : String(error));
    }
  }
  return out;
}

function shallowMerge(given: unknown, defaults: unknown): unknown {
  if (given === undefined) return defaults;
  if (given === null || typeof given !== 'object' || Array.isArray(given)) throw new Error('expected an object');
  const out: Record<string, unknown> = { ...(defaults as Record<string, unknown>) };
  for (const [key, value] of Object.entries(given)) {
    if (key === '__proto__' || key === 'constructor' || key === 'prototype') throw new Error(`refused key '${key}'`);
    if (!Object.hasOwn(out, key)) throw new Error(`unknown setting '${key}'`);
    out[key] = value;
  }
  return out;
}

/** The plain service context inside a feature context (what factories of the older form receive). */
function serviceContextOf(ctx: FeatureContext): ServiceContext {
  return {
    storage: ctx.storage,
    kv: ctx.kv,
    counters: ctx.counters,
    clock: ctx.clock,
    random: ctx.random,
    logger: ctx.logger,
    applications: ctx.applications,
  };
}
