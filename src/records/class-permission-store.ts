import type { ClassPermissionSource } from '../access/class-permission-source.js';
import { type ClassPermissions, OPEN_CLASS, parseClassPermissions } from '../access/class-permissions.js';
import type { Clock } from '../core/clock.js';
import { isSvcError } from '../core/errors.js';
import { LruMap } from '../core/lru.js';
import { dateValue, type StoredRecord } from '../core/values.js';
import type { Json } from '../core/wire-values.js';
import type { FindPlan } from '../query/plan.js';
import type { StorageAdapter, TableRef } from '../storage/port.js';
import type { Random } from '../core/random.js';
import { newObjectId } from '../core/object-id.js';

/** The system table holding each table's class-level permissions (master key only, never batched). */
export const CLASS_PERMISSIONS_TABLE = '_ClassPermissions';

/** Class-level permissions persisted per table: read through the cache, written by the schema API. */
export interface ClassPermissionStore extends ClassPermissionSource {
  /** The stored wire form (Parse Server's `classLevelPermissions`), or null when none is set. */
  wire(table: TableRef): Promise<Json | null>;
  /** Throws 11170 unless `wire` is a valid class-level permissions object. */
  validate(wire: Json): void;
  /** Validates (11170) and stores the wire form; null removes it (every operation open again). */
  write(table: TableRef, wire: Json | null): Promise<void>;
  /** Drops the cached entry of a table (another instance wrote it). */
  forget(table: TableRef): void;
  /** How many names the cache holds: of tables that exist (or have permissions), and of names that name no table. */
  cacheSize(): { readonly tables: number; readonly missing: number };
}

export interface ClassPermissionStoreOptions {
  readonly storage: StorageAdapter;
  readonly clock: Clock;
  readonly random: Random;
  /**
   * How long permissions read from storage are reused, in ms (default 5000). A write through this
   * instance replaces its cached entry at once; the bound covers writes through other instances.
   */
  readonly ttlMs?: number;
  /** Called after each `write` (the records feature tells other instances). */
  readonly onWrite?: (table: TableRef) => void;
  /** Most tables (over every namespace) whose permissions stay cached, least recently used evicted first (default 10,000). */
  readonly maxTables?: number;
  /** Most names of tables that do not exist kept as such, least recently used evicted first (default 1,000). */
  readonly maxMissing?: number;
}

interface Cached {
  readonly permissions: Promise<ClassPermissions>;
  readonly expiresAt: number;
}

/** What a read found: the permissions, and whether the table exists (or has a stored row). */
interface Loaded {
  readonly permissions: ClassPermissions;
  readonly exists: boolean;
}

/**
 * Class-level permissions kept in `_ClassPermissions` (one record per table: `className`, the wire
 * `permissions`), so every instance over one storage sees the same rules. Reads are cached per table
 * for `ttlMs`; a stored value that no longer parses counts as "master key only" (fail closed).
 * Class names come from clients, so the cache is bounded (issue 35): tables that exist in an LRU of
 * `maxTables`, names of tables that do not in one of `maxMissing`, where a read starts, so a flood of
 * made-up names never evicts a real table's entry.
 */
export function storageClassPermissionStore(options: ClassPermissionStoreOptions): ClassPermissionStore {
  const { storage, clock } = options;
  const ttlMs = options.ttlMs ?? 5000;
  const tables = new LruMap<string, Cached>(options.maxTables ?? 10_000);
  const missing = new LruMap<string, Cached>(options.maxMissing ?? 1_000);
  const tableOf = (table: TableRef): TableRef => ({ namespace: table.namespace, className: CLASS_PERMISSIONS_TABLE });
  const keyOf = (table: TableRef) => `${table.namespace}\u0000${table.className}`;
  const ready = new Map<string, Promise<void>>();

  const ensureTable = (table: TableRef): Promise<void> => {
    let pending = ready.get(table.namespace);
    if (!pending) {
      const ref = tableOf(table);
      pending = (async () => {
        await storage.ensureColumns(ref, { className: { type: 'String' }, permissions: { type: 'Object' } });
        await storage.createIndex(ref, { name: 'unique_className', columns: ['className'], unique: true });
      })();
      ready.set(table.namespace, pending);
      pending.catch(() => ready.delete(table.namespace));
    }
    return pending;
  };

  const findRow = async (table: TableRef, via: StorageAdapter = storage): Promise<StoredRecord | null> => {
    const ref = tableOf(table);
    if ((await via.getSchema(ref)) === null) return null;
    const plan: FindPlan = {
      where: { kind: 'compare', field: { column: 'className', path: [] }, op: 'eq', value: table.className },
      order: [],
      skip: 0,
      limit: 1,
      projection: { kind: 'all' },
    };
    return (await via.find(ref, plan))[0] ?? null;
  };

  const load = async (table: TableRef, via: StorageAdapter | undefined): Promise<Loaded> => {
    const row = await findRow(table, via);
    if (!row) return { permissions: OPEN_CLASS, exists: (await (via ?? storage).getSchema(table)) !== null };
    if (row['permissions'] === undefined || row['permissions'] === null) return { permissions: OPEN_CLASS, exists: true };
    try {
      return { permissions: parseClassPermissions(row['permissions'] as Json), exists: true };
    } catch {
      return { permissions: MASTER_ONLY, exists: true };
    }
  };

  return {
    permissionsOf(table, via) {
      const key = keyOf(table);
      const now = clock.now();
      const known = tables.get(key);
      const hit = known ?? missing.get(key);
      if (hit && hit.expiresAt > now) return hit.permissions;
      const loading = load(table, via);
      const entry: Cached = { permissions: loading.then((loaded) => loaded.permissions), expiresAt: now + ttlMs };
      // A table known to exist reloads in its place; any other name waits with the missing ones until
      // the read shows its table exists, so made-up names never push a real table out.
      (known ? tables : missing).set(key, entry);
      loading.then(
        (loaded) => {
          const [from, to] = loaded.exists ? [missing, tables] : [tables, missing];
          if (from.peek(key) !== entry) return;
          from.delete(key);
          to.set(key, entry);
        },
        () => {
          if (tables.peek(key) === entry) tables.delete(key);
          if (missing.peek(key) === entry) missing.delete(key);
        },
      );
      return entry.permissions;
    },
    validate(wire) {
      parseClassPermissions(wire);
    },
    async wire(table) {
      const row = await findRow(table);
      return row ? ((row['permissions'] as Json | undefined) ?? null) : null;
    },
    async write(table, wire) {
      const parsed = wire === null ? OPEN_CLASS : parseClassPermissions(wire);
      await ensureTable(table);
      const ref = tableOf(table);
      const at = dateValue(clock.now());
      const value = (wire === null ? null : JSON.parse(JSON.stringify(wire))) as StoredRecord['permissions'];
      const ops = [wire === null ? ({ kind: 'unset', column: 'permissions', path: [] } as const) : ({ kind: 'set', column: 'permissions', path: [], value } as const)];
      for (let attempt = 0; ; attempt++) {
        const row = await findRow(table);
        if (row) {
          await storage.update(ref, row.objectId, ops, at);
          break;
        }
        try {
          const record = { objectId: newObjectId(options.random), createdAt: at, updatedAt: at, className: table.className } as StoredRecord;
          await storage.insert(ref, wire === null ? record : ({ ...record, permissions: value } as StoredRecord));
          break;
        } catch (error) {
          // Another writer stored the table's row first: update it instead.
          if (attempt > 0 || !isSvcError(error) || error.errorName !== 'uniqueViolation') throw error;
        }
      }
      missing.delete(keyOf(table));
      tables.set(keyOf(table), { permissions: Promise.resolve(parsed), expiresAt: clock.now() + ttlMs });
      options.onWrite?.(table);
    },
    forget(table) {
      tables.delete(keyOf(table));
      missing.delete(keyOf(table));
    },
    cacheSize: () => ({ tables: tables.size, missing: missing.size }),
  };
}

/** Every operation closed to all but the master key: what an unreadable stored value means. */
const MASTER_ONLY: ClassPermissions = Object.freeze({
  operations: Object.freeze({
    get: { principals: new Set<string>(), requiresAuthentication: false },
    find: { principals: new Set<string>(), requiresAuthentication: false },
    count: { principals: new Set<string>(), requiresAuthentication: false },
    create: { principals: new Set<string>(), requiresAuthentication: false },
    update: { principals: new Set<string>(), requiresAuthentication: false },
    delete: { principals: new Set<string>(), requiresAuthentication: false },
    addField: { principals: new Set<string>(), requiresAuthentication: false },
  }),
  protectedFields: new Map(),
});
