import type { Caller } from '../app/caller.js';
import type { Clock } from '../core/clock.js';
import { svcError } from '../core/errors.js';
import type { StoredRecord } from '../core/values.js';
import type { WhereNode } from '../query/plan.js';
import type { StorageAdapter, TableRef } from '../storage/port.js';
import type { Acl } from './acl.js';
import { ACL_COLUMN, aclReadFilter } from './acl-filter.js';
import { type ClassPermissionSource, openClassPermissionSource } from './class-permission-source.js';
import { type ClassOperation, classAllows, protectedFieldsFor } from './class-permissions.js';
import { ANONYMOUS, type Principals, aclAllows, principalsOf } from './principals.js';
import { RoleCache } from './role-cache.js';
import { ROLE_CLASS, storageRoleLookup } from './role-lookup.js';

/**
 * Who a caller is for access checks: `master` bypasses ACLs and class-level permissions; otherwise
 * the caller's principals (`*`, its user id, `role:<name>` for every role it holds).
 */
export type Access = { readonly master: true } | { readonly master: false; readonly principals: Principals };

export const MASTER_ACCESS: Access = Object.freeze({ master: true });

const NOTHING_HIDDEN: ReadonlySet<string> = new Set();

/**
 * The access-control decisions of one service: principals per caller (roles resolved and cached),
 * ACL read filters pushed into queries, per-record read and write checks, class-level permissions.
 * Pure decisions over storage reads; the records and users services call it on every path.
 */
export interface AccessControl {
  /** The caller's access: one session lookup and one cached role walk per request at most. */
  accessOf(caller: Caller, via?: StorageAdapter): Promise<Access>;
  /** The where node every non-master read of any table is ANDed with; null for the master key. */
  readFilter(access: Access): WhereNode | null;
  /** Whether the caller may read (or write) this stored record by its ACL. */
  allows(access: Access, record: StoredRecord, permission: 'read' | 'write'): boolean;
  /** Refuses (11171) unless the table's class-level permissions admit the caller. */
  assertClassAllows(access: Access, table: TableRef, operation: ClassOperation, via?: StorageAdapter): Promise<void>;
  /** The table's protected fields hidden from this caller (none for the master key). */
  hiddenColumns(access: Access, table: TableRef, via?: StorageAdapter): Promise<ReadonlySet<string>>;
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
}

export function createAccessControl(options: AccessControlOptions): AccessControl {
  const roles = new RoleCache({
    lookup: (namespace) => storageRoleLookup(options.storage, namespace),
    clock: options.clock,
    ...(options.roleTtlMs === undefined ? {} : { ttlMs: options.roleTtlMs }),
  });
  const permissions = options.classPermissions ?? openClassPermissionSource;
  const filters = new WeakMap<Principals, WhereNode>();
  // Principals per resolved role list (the role cache hands out the same array while it is fresh),
  // so a warm user costs no allocation and its filter node is reused.
  const principalsByRoles = new WeakMap<readonly string[], Map<string, Principals>>();
  const principalsFor = (userId: string, names: readonly string[]): Principals => {
    let byUser = principalsByRoles.get(names);
    if (!byUser) principalsByRoles.set(names, (byUser = new Map()));
    let principals = byUser.get(userId);
    if (!principals) byUser.set(userId, (principals = principalsOf(userId, names)));
    return principals;
  };
  return {
    async accessOf(caller, via) {
      if (caller.isMaster) return MASTER_ACCESS;
      const user = await caller.user();
      if (!user) return { master: false, principals: ANONYMOUS };
      const namespace = caller.app.namespace;
      const names = await roles.rolesOf(namespace, user.objectId, via ? storageRoleLookup(via, namespace) : undefined);
      return { master: false, principals: principalsFor(user.objectId, names) };
    },
    readFilter(access) {
      if (access.master) return null;
      let filter = filters.get(access.principals);
      if (!filter) filters.set(access.principals, (filter = aclReadFilter(access.principals)));
      return filter;
    },
    allows(access, record, permission) {
      if (access.master) return true;
      return aclAllows(record[ACL_COLUMN] as Acl | undefined | null, access.principals, permission);
    },
    async assertClassAllows(access, table, operation, via) {
      if (access.master) return;
      const rules = await permissions.permissionsOf(table, via);
      if (!classAllows(rules, operation, access.principals)) throw svcError('classPermissionDenied', operation, table.className);
    },
    async hiddenColumns(access, table, via) {
      if (access.master) return NOTHING_HIDDEN;
      const rules = await permissions.permissionsOf(table, via);
      return rules.protectedFields.size === 0 ? NOTHING_HIDDEN : protectedFieldsFor(rules, access.principals);
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
