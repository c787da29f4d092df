import { deepFreeze } from '../core/freeze.js';
import type { ListQuery, QueryFootprint, QuerySettings } from '../query/parse.js';
import type { TableSchema } from '../query/plan.js';

/**
 * What a list query's parse read besides its text: the same objects give the same plan. Schemas
 * and settings are frozen and replaced, never changed, so their identity is their version; the
 * secret-column rule is the service's one function over table rules declared at start-up.
 */
export interface ListParseInputs {
  readonly settings: QuerySettings;
  readonly isSecretColumn: ((className: string, column: string) => boolean) | undefined;
  /** The schema of every table the parse could read (the listed table first), null where none exists. */
  readonly schemas: ReadonlyMap<string, TableSchema | null>;
}

/** A parsed list query and the columns it names, as `handleList` uses them before restricting them to a caller. */
export interface CachedListPlan {
  readonly query: ListQuery;
  readonly footprint: QueryFootprint;
}

/** A kept plan and what its parse read: valid while the same tables have the same schemas. */
export interface ListPlanEntry extends CachedListPlan {
  readonly inputs: ListParseInputs;
}

/** Most plans kept: the distinct list queries an application's clients send are few; past it the oldest goes. */
const MAX_PLANS = 512;

/**
 * Longest query text cached (characters of the key): a long `where` is rare, parsing it costs
 * little next to running it, and the bound keeps the cache small (at most about a million
 * characters of keys).
 */
const MAX_KEY_LENGTH = 2048;

/**
 * Parsed list queries by their text. A repeated list (the same page, the same count) skips the
 * where's JSON decoding, its parse and its footprint; the caller's access is still applied per
 * request, to the cached plan, which is deeply frozen: a reader that tried to change it would throw.
 * A kept plan is used only while every schema its parse read is the same object (see `get`).
 */
export class ListPlanCache {
  // Oldest first out, not least recently used: a hit then costs one lookup, not a move as well.
  readonly #plans = new Map<string, ListPlanEntry>();

  /**
   * The cache key of a list over `className` (null when too long to cache): every parameter, in
   * order, each name and value prefixed by its length, so no two different queries share a key.
   */
  static keyOf(namespace: string, className: string, params: URLSearchParams): string | null {
    let key = namespace.length + ':' + namespace + className.length + ':' + className;
    for (const [name, value] of params) {
      key += name.length + ':' + name + value.length + ':' + value;
      if (key.length > MAX_KEY_LENGTH) return null;
    }
    return key;
  }

  /**
   * The plan parsed from `key` with these settings and secret-column rule, if kept. The caller still
   * compares its `inputs.schemas` with the tables' current schemas before using it.
   */
  get(key: string, settings: QuerySettings, isSecretColumn: ListParseInputs['isSecretColumn']): ListPlanEntry | undefined {
    const entry = this.#plans.get(key);
    return entry && entry.inputs.settings === settings && entry.inputs.isSecretColumn === isSecretColumn ? entry : undefined;
  }

  /** Keeps a plan parsed from `key` with `inputs`, frozen. */
  set(key: string, inputs: ListParseInputs, plan: CachedListPlan): void {
    deepFreeze(plan.query);
    if (this.#plans.size >= MAX_PLANS && !this.#plans.has(key)) this.#plans.delete(this.#plans.keys().next().value!);
    this.#plans.set(key, { inputs, query: plan.query, footprint: plan.footprint });
  }
}
