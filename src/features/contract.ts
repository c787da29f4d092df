import type { Application } from '../app/application.js';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import type { MetricsPort } from '../core/metrics.js';
import type { Random } from '../core/random.js';
import type { CounterStore } from '../counters/port.js';
import type { EventBus } from '../events/port.js';
import type { WriteObserver } from '../events/write-event.js';
import type { KvStore } from '../kv/port.js';
import type { StorageAdapter } from '../storage/port.js';
import type { RouteDef, UpgradeDef } from './routes.js';
import type { WriteHookRegistry } from '../events/write-hook-types.js';


/** Everything a feature needs from the service; passed to every feature factory. */
export interface ServiceContext {
  readonly storage: StorageAdapter;
  readonly kv: KvStore;
  /** Rate-limit counters shared by every feature (SMS send limits, login throttling). */
  readonly counters: CounterStore;
  readonly clock: Clock;
  readonly random: Random;
  readonly logger: Logger;
  /** Applications by id. */
  readonly applications: ReadonlyMap<string, Application>;
  /**
   * Registers a write observer (as `service.onWrite`): called once per changed record after commit.
   * Returns the unsubscribe function. Set by `createService`; contexts built by hand may omit it.
   */
  readonly onWrite?: (observer: WriteObserver) => () => void;
  /**
   * The event bus shared by the service's instances (`ServiceOptions.bus`), when the host gave one:
   * features announce cache invalidations on it, and realtime fans out through it unless given its own.
   */
  readonly bus?: EventBus;
  /**
   * Where the features report what the console's dashboard and `/metrics` show (`noMetrics` when
   * neither is on). Contexts built by hand may omit it.
   */
  readonly metrics?: MetricsPort;
}

/** A feature plugs routes (and optionally cleanup) into the service. */
export interface Feature {
  readonly name: string;
  readonly routes: readonly RouteDef[];
  /** Upgrade handlers by path, served by `service.handleUpgrade`. */
  readonly upgrades?: readonly UpgradeDef[];
  close?(): Promise<void> | void;
}

/**
 * A typed handle on one feature's API: features (and hosts) reach each other through keys, never
 * through one closed registry type. The type parameter only exists at compile time.
 *
 * @example
 * export const SMS = featureKey<SmsApi>('sms');
 * const sms = ctx.use(SMS); // SmsApi, or coded error 11115 when no feature 'sms' is in the service
 */
export interface FeatureKey<Api> {
  readonly id: string;
  /** Compile-time only: the API type the key stands for. */
  readonly __api?: (api: Api) => Api;
}

/** Makes the key of a feature's API; `id` is the feature's id. */
export function featureKey<Api>(id: string): FeatureKey<Api> {
  if (typeof id !== 'string' || !FEATURE_ID.test(id)) throw new Error(`[svcbase] [features] invalid feature id '${String(id)}'`);
  return Object.freeze({ id });
}

/** Feature ids: a letter, then letters, digits, `-` or `_` (at most 64). */
export const FEATURE_ID = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

/**
 * A feature's settings slice: its defaults, and a check that turns what an application configured
 * (`applications[].featureSettings[id]`, anything the host wrote) into the feature's settings or throws.
 */
export interface FeatureSettings<S> {
  readonly defaults: S;
  /**
   * Merges and validates one application's slice (`given` is undefined when the application sets
   * none). Throw an Error with a readable message to refuse it: createService fails with 11116.
   * Default: a shallow merge of a plain object over the defaults.
   */
  resolve?(given: unknown, defaults: S): S;
}

/** What a feature gets at start-up: the service's shared ports plus lookups of other features. */
export interface FeatureContext<S = unknown> extends ServiceContext {
  /** The API of a feature this one `requires` (or that is otherwise present); 11115 when absent. */
  use<Api>(key: FeatureKey<Api>): Api;
  /** The API of an optional feature, or undefined. Resolve it when needed if the feature may start later. */
  find<Api>(key: FeatureKey<Api>): Api | undefined;
  /** This feature's settings for one application (its defaults when the feature declares none). */
  settings(app: Application): S;
  /** The host's write hooks (beforeSave, afterSave, beforeDelete, afterDelete). */
  readonly hooks: WriteHookRegistry;
}

/** What `init` returns: the feature's API (published under its id), routes, upgrades and clean-up. */
export interface FeatureInstance<Api = unknown> {
  readonly api?: Api;
  readonly routes: readonly RouteDef[];
  readonly upgrades?: readonly UpgradeDef[];
  close?(): Promise<void> | void;
}

/**
 * A feature: an id, the features it needs, its settings slice and `init`. `createService` starts the
 * features in `requires` order (declaration order otherwise), so adding one touches no other feature.
 *
 * @example
 * const GREETER = featureKey<{ greet(name: string): string }>('greeter');
 * const greeter = defineFeature({
 *   id: GREETER.id,
 *   requires: ['records'],
 *   settings: { defaults: { greeting: 'hello' } },
 *   init: (ctx) => ({
 *     api: { greet: (name: string) => `hello ${name}` },
 *     routes: [{ method: 'GET', path: '/1/greet', auth: 'app', body: 'none',
 *                handler: (route) => ({ body: { text: ctx.settings(route.app).greeting } }) }],
 *   }),
 * });
 * createService({ storage, applications, features: [greeter] });
 */
export interface FeatureDefinition<Api = unknown, S = unknown> {
  readonly id: string;
  /** Ids of features that must start first; a missing one fails createService with 11112, a cycle with 11113. */
  readonly requires?: readonly string[];
  /** Ids of optional features that, when present, start first (no error when absent). */
  readonly after?: readonly string[];
  readonly settings?: FeatureSettings<S>;
  init(ctx: FeatureContext<S>): FeatureInstance<Api>;
}

/** Identity helper that infers a definition's API and settings types. */
export function defineFeature<Api, S = unknown>(definition: FeatureDefinition<Api, S>): FeatureDefinition<Api, S> {
  return definition;
}
