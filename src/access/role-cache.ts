import type { Clock } from '../core/clock.js';
import { type RoleLookup, resolveUserRoles } from './role-graph.js';

export interface RoleCacheOptions {
  /** The role graph of a namespace. */
  readonly lookup: (namespace: string) => RoleLookup;
  readonly clock: Clock;
  /**
   * How long a user's resolved roles are reused, in ms (default 5000). A write to `_Role` through this
   * instance clears its namespace at once; the time bound covers writes made by other instances.
   */
  readonly ttlMs?: number;
  /** Users cached per namespace at most (default 10 000; the oldest entry goes first). */
  readonly maxUsers?: number;
}

interface Entry {
  readonly names: Promise<readonly string[]>;
  readonly expiresAt: number;
}

/**
 * Per-user role resolution, cached: one graph walk per user per `ttlMs`, concurrent requests of one
 * user sharing it, and cleared for a namespace whenever its `_Role` table changes (`invalidate`, called
 * from a write observer).
 */
export class RoleCache {
  private readonly namespaces = new Map<string, Map<string, Entry>>();
  private readonly ttlMs: number;
  private readonly maxUsers: number;

  constructor(private readonly options: RoleCacheOptions) {
    this.ttlMs = options.ttlMs ?? 5000;
    this.maxUsers = options.maxUsers ?? 10_000;
  }

  /** The names of every role `userId` holds in `namespace` (directly or through child roles). */
  rolesOf(namespace: string, userId: string, lookup: RoleLookup = this.options.lookup(namespace)): Promise<readonly string[]> {
    const now = this.options.clock.now();
    let users = this.namespaces.get(namespace);
    if (!users) this.namespaces.set(namespace, (users = new Map()));
    const hit = users.get(userId);
    if (hit && hit.expiresAt > now) return hit.names;
    if (hit) users.delete(userId);
    const names = resolveUserRoles(lookup, userId).then((r) => r.names);
    if (users.size >= this.maxUsers) users.delete(users.keys().next().value as string);
    const entry: Entry = { names, expiresAt: now + this.ttlMs };
    users.set(userId, entry);
    // A failed walk is not remembered: the next request tries again.
    names.catch(() => {
      if (users.get(userId) === entry) users.delete(userId);
    });
    return names;
  }

  /** Forgets every cached user of `namespace` (its roles changed). */
  invalidate(namespace: string): void {
    this.namespaces.delete(namespace);
  }
}
