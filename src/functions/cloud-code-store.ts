import type { Clock } from '../core/clock.js';
import { isSvcError } from '../core/errors.js';
import type { Random } from '../core/random.js';
import { dateMs, dateValue, type StoredRecord } from '../core/values.js';
import type { FindPlan } from '../query/plan.js';
import { newObjectId } from '../core/object-id.js';
import type { StorageAdapter, TableRef } from '../storage/port.js';

import { CLOUD_CODE_TABLE } from '../records/index.js';

export { CLOUD_CODE_TABLE };

/** The languages a function may be deployed in. */
export type FunctionLanguage = 'node' | 'java';

export interface DeployedSource {
  readonly name: string;
  readonly language: FunctionLanguage;
  readonly source: string;
  /** Epoch milliseconds of the last deployment. */
  readonly updatedAt: number;
}

const COLUMNS = { name: { type: 'String' }, language: { type: 'String' }, source: { type: 'String' } } as const;

/**
 * Deployed sources per application, in storage (so every instance serves the same code), read
 * through a per-application cache of `ttlMs` (default 2 s): a deployment through this instance
 * applies here at once, through another within that time.
 */
export class CloudCodeStore {
  private readonly cache = new Map<string, { readonly byName: Map<string, DeployedSource>; readonly loadedAt: number }>();
  private readonly ready = new Map<string, Promise<void>>();

  constructor(
    private readonly storage: StorageAdapter,
    private readonly clock: Clock,
    private readonly random: Random,
    private readonly ttlMs = 2000,
  ) {}

  async get(namespace: string, name: string): Promise<DeployedSource | undefined> {
    return (await this.all(namespace)).get(name);
  }

  /**
   * `get` without waiting when the application's sources are cached and fresh: the source, or
   * undefined when none has the name; null when the cache must be read first (call `get`).
   */
  cached(namespace: string, name: string): DeployedSource | undefined | null {
    const hit = this.cache.get(namespace);
    return hit && this.clock.now() - hit.loadedAt < this.ttlMs ? hit.byName.get(name) : null;
  }

  async list(namespace: string): Promise<DeployedSource[]> {
    return [...(await this.all(namespace)).values()].sort((a, b) => (a.name < b.name ? -1 : 1));
  }

  async put(namespace: string, name: string, source: string, language: FunctionLanguage = 'node'): Promise<DeployedSource> {
    const ref = await this.table(namespace);
    const at = dateValue(this.clock.now());
    const deployed: DeployedSource = { name, language, source, updatedAt: dateMs(at) };
    for (let attempt = 0; ; attempt++) {
      const row = await this.row(ref, name);
      if (row) {
        await this.storage.update(ref, row.objectId, [{ kind: 'set', column: 'source', path: [], value: source }, { kind: 'set', column: 'language', path: [], value: language }], at);
        break;
      }
      try {
        await this.storage.insert(ref, { objectId: newObjectId(this.random), createdAt: at, updatedAt: at, name, language, source } as StoredRecord);
        break;
      } catch (error) {
        // Another instance deployed the same name first: update it instead.
        if (attempt > 0 || !isSvcError(error) || error.errorName !== 'uniqueViolation') throw error;
      }
    }
    this.cache.delete(namespace);
    return deployed;
  }

  async delete(namespace: string, name: string): Promise<boolean> {
    const ref = await this.table(namespace);
    const row = await this.row(ref, name);
    this.cache.delete(namespace);
    return row ? this.storage.delete(ref, row.objectId) : false;
  }

  private async all(namespace: string): Promise<Map<string, DeployedSource>> {
    const hit = this.cache.get(namespace);
    if (hit && this.clock.now() - hit.loadedAt < this.ttlMs) return hit.byName;
    const ref = await this.table(namespace);
    const plan: FindPlan = { where: { kind: 'all_records' }, order: [], skip: 0, limit: 10_000, projection: { kind: 'all' } };
    const byName = new Map<string, DeployedSource>();
    for (const row of await this.storage.find(ref, plan)) {
      if (typeof row['name'] !== 'string' || typeof row['source'] !== 'string') continue;
      byName.set(row['name'], { name: row['name'], language: row['language'] === 'java' ? 'java' : 'node', source: row['source'], updatedAt: dateMs(row.updatedAt) });
    }
    this.cache.set(namespace, { byName, loadedAt: this.clock.now() });
    return byName;
  }

  private async row(ref: TableRef, name: string): Promise<StoredRecord | undefined> {
    const plan: FindPlan = { where: { kind: 'compare', field: { column: 'name', path: [] }, op: 'eq', value: name }, order: [], skip: 0, limit: 1, projection: { kind: 'all' } };
    return (await this.storage.find(ref, plan))[0];
  }

  private table(namespace: string): Promise<TableRef> {
    const ref: TableRef = { namespace, className: CLOUD_CODE_TABLE };
    let pending = this.ready.get(namespace);
    if (!pending) {
      pending = (async () => {
        await this.storage.ensureColumns(ref, COLUMNS);
        await this.storage.createIndex(ref, { name: 'unique_name', columns: ['name'], unique: true });
      })();
      this.ready.set(namespace, pending);
      pending.catch(() => this.ready.delete(namespace));
    }
    return pending.then(() => ref);
  }
}
