import type { Caller } from '../app/caller.js';
import type { Clock } from '../core/clock.js';
import type { StorageAdapter, TableRef } from '../storage/port.js';
import { type ClassPermissionSource, openClassPermissionSource } from './class-permission-source.js';
import { type ClassPermissions, OPEN_CLASS } from './class-permissions.js';
import { ANONYMOUS, type Principals, principalsOf } from './principals.js';
import { type TableAccess, tableAccess } from './table-access.js';
import { type TableRule, TableRules } from './table-rules.js';
import { RoleCache } from './role-cache.js';
import { ROLE_CLASS, storageRoleLookup } from './role-lookup.js';
import { LruMap } from '../core/lru.js';

/**
 * Who a caller is for access checks: `master` bypasses ACLs and class-level permissions; otherwise
 * the caller's principals (`*`, its user id, `role:<name>` for every role it holds).
 */
export type Access = { readonly master: true } | { readonly master: false; readonly principals: Principals };

export const MASTER_ACCESS: Access = Object.freeze({ master: true });

/**
 * The access-control decisions of one service: principals per caller (roles resolved and cached) and,
 * per caller and table, the one view every reader and writer asks (`tableAccess`: allowed operations,
 * the row filter, row checks, hidden columns). Pure decisions over cached storage reads.
 */
export interface AccessControl {
  /** The caller's access: one session lookup and one cached role walk per request at most. */
  accessOf(caller: Caller, via?: StorageAdapter): Promise<Access>;
  /**
   * The access view of `table` for `access` (see `TableAccess`). Cached while the caller's resolved
   * roles and the table's permissions are: a warm call allocates nothing. `via` is the storage to read
   * permissions through when not cached (a transaction's adapter inside a transaction).
   */
  tableAccess(access: Access, table: TableRef, via?: StorageAdapter): Promise<TableAccess>;
  /** The declared rules of system tables (`_User`, `_Role`, `_Session`, and what features declare). */
  readonly tables: TableRules;
  /** Forgets cached roles of a namespace and tells other instances (`onRolesChanged`): call after a `_Role` write. */
  rolesChanged(namespace: string): void;
  /** Forgets cached roles of a namespace without telling anyone (another instance changed them). */
  forgetRoles(namespace: string): void;
}

export interface AccessControlOptions {
  /** The storage roles are read from (`_Role` with its `users` and `roles` relations). */
  readonly storage: StorageAdapter;
  readonly clock: Clock;
  /** Class-level permissions by table (the schema API's); every table open without it. */
  readonly classPermissions?: ClassPermissionSource;
  /** How long a user's resolved roles are reused across requests, in ms (default 5000). */
  readonly roleTtlMs?: number;
  /** Called by `rolesChanged` after the local cache was cleared (the records feature tells other instances). */
  readonly onRolesChanged?: (namespace: string) => void;
  /** The rules of system tables (default: a new registry with the built-in ones). */
  readonly tables?: TableRules;
}

/** Views kept per principals at most; past it the least recently used table's view goes. */
const VIEWS_PER_PRINCIPALS = 256;

interface CachedView {
  readonly permissions: ClassPermissions;
  readonly rule: TableRule;
  readonly view: TableAccess;
}

export function createAccessControl(options: AccessControlOptions): AccessControl {
  const roles = new RoleCache({
    lookup: (namespace) => storageRoleLookup(options.storage, namespace),
    clock: options.clock,
    ...(options.roleTtlMs === undefined ? {} : { ttlMs: options.roleTtlMs }),
  });
  const permissions = options.classPermissions ?? openClassPermissionSource;
  const tables = options.tables ?? new TableRules();
  // Principals per resolved role list (the role cache hands out the same array while it is fresh),
  // so a warm user costs no allocation and its views are reused.
  const principalsByRoles = new WeakMap<readonly string[], Map<string, Principals>>();
  const principalsFor = (userId: string, names: readonly string[]): Principals => {
    let byUser = principalsByRoles.get(names);
    if (!byUser) principalsByRoles.set(names, (byUser = new Map()));
    let principals = byUser.get(userId);
    if (!principals) byUser.set(userId, (principals = principalsOf(userId, names)));
    return principals;
  };
  const views = new WeakMap<object, LruMap<string, CachedView>>();
  const viewOf = (access: Access, table: TableRef, rules: ClassPermissions): TableAccess => {
    const owner: object = access.master ? MASTER_ACCESS : access.principals;
    let byTable = views.get(owner);
    if (!byTable) views.set(owner, (byTable = new LruMap(VIEWS_PER_PRINCIPALS)));
    const key = `${table.namespace}\u0000${table.className}`;
    const rule = tables.ruleOf(table.className);
    const hit = byTable.get(key);
    if (hit && hit.permissions === rules && hit.rule === rule) return hit.view;
    const view = tableAccess({ table, rule, permissions: rules, principals: access.master ? null : access.principals });
    byTable.set(key, { permissions: rules, rule, view });
    return view;
  };
  return {
    tables,
    async accessOf(caller, via) {
      if (caller.isMaster) return MASTER_ACCESS;
      const user = await caller.user();
      if (!user) return { master: false, principals: ANONYMOUS };
      const namespace = caller.app.namespace;
      const names = await roles.rolesOf(namespace, user.objectId, via ? storageRoleLookup(via, namespace) : undefined);
      return { master: false, principals: principalsFor(user.objectId, names) };
    },
    async tableAccess(access, table, via) {
      // The master key's view depends on the table's rule alone: no permissions to read.
      return viewOf(access, table, access.master ? OPEN_CLASS : await permissions.permissionsOf(table, via));
    },
    rolesChanged(namespace) {
      roles.invalidate(namespace);
      options.onRolesChanged?.(namespace);
    },
    forgetRoles(namespace) {
      roles.invalidate(namespace);
    },
  };
}

/** Whether a write to `className` may change role membership (and so must clear cached roles). */
export function isRoleTable(className: string): boolean {
  return className === ROLE_CLASS;
}
