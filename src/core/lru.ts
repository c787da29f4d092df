import { configError } from './errors.js';

const NONE: unique symbol = Symbol('none');

/**
 * A Map of at most `max` entries that evicts the least recently used one: the bound every cache keyed
 * by a name a client chooses (a class, a file, a function) needs, or each distinct name asked stays.
 * `get` and `set` make an entry the most recent; `peek` and `has` do not. A Map keeps insertion order,
 * so its first key is always the least recent. Values must not be `undefined`.
 *
 * @example
 * const schemas = new LruMap<string, TableSchema>(10_000);
 * schemas.set('Post', schema); // past 10,000 entries the least recently used goes
 */
export class LruMap<K, V> {
  readonly #map = new Map<K, V>();
  /** The most recent key: a hit on it needs no move (most hits repeat the last key: one table, one statement). */
  #newest: K | typeof NONE = NONE;

  constructor(readonly max: number) {
    if (!Number.isSafeInteger(max) || max < 1) throw configError('lru', `max must be a positive integer, got ${max}`);
  }

  get size(): number {
    return this.#map.size;
  }

  /** The value, made the most recent; undefined when absent. */
  get(key: K): V | undefined {
    const value = this.#map.get(key);
    if (value !== undefined && key !== this.#newest) {
      this.#map.delete(key);
      this.#map.set(key, value);
      this.#newest = key;
    }
    return value;
  }

  /** The value without touching its recency. */
  peek(key: K): V | undefined {
    return this.#map.get(key);
  }

  has(key: K): boolean {
    return this.#map.has(key);
  }

  /** Stores the value as the most recent, evicting the least recent entry when full. */
  set(key: K, value: V): this {
    if (this.#map.has(key)) this.#map.delete(key);
    else if (this.#map.size >= this.max) this.#map.delete(this.#map.keys().next().value as K);
    this.#map.set(key, value);
    this.#newest = key;
    return this;
  }

  delete(key: K): boolean {
    if (key === this.#newest) this.#newest = NONE;
    return this.#map.delete(key);
  }

  clear(): void {
    this.#newest = NONE;
    this.#map.clear();
  }
}
