import type { PointerValue } from '../core/values.js';
import type { FindPlan, WhereNode } from '../query/plan.js';
import type { StorageAdapter } from '../storage/port.js';
import type { RoleLookup, RoleRef } from './role-graph.js';

export const ROLE_CLASS = '_Role';

/** Roles read per lookup step at most (a user in more roles than this is cut by the resolver's limit). */
const PAGE = 1000;

function pointer(className: string, objectId: string): PointerValue {
  return { __type: 'Pointer', className, objectId };
}

/** Membership of any of `ids` in the Relation column `column` (one `compare` per id, or-ed). */
function memberOfAny(column: string, targetClass: string, ids: readonly string[]): WhereNode {
  const nodes: WhereNode[] = ids.map((id) => ({ kind: 'compare', field: { column, path: [] }, op: 'eq', value: pointer(targetClass, id) }));
  return nodes.length === 1 ? nodes[0]! : { kind: 'or', nodes };
}

/**
 * The role graph of one application read from its `_Role` table: `users` (Relation to `_User`) and
 * `roles` (Relation to `_Role`, the child roles). Reads only `objectId` and `name`. A namespace
 * without a `_Role` table (or without one of the columns) has no roles.
 */
export function storageRoleLookup(storage: StorageAdapter, namespace: string): RoleLookup {
  const table = { namespace, className: ROLE_CLASS };
  const read = async (column: 'users' | 'roles', targetClass: string, ids: readonly string[]): Promise<RoleRef[]> => {
    if (ids.length === 0) return [];
    const schema = await storage.getSchema(table);
    if (!schema || schema.columns[column]?.type !== 'Relation') return [];
    const plan: FindPlan = {
      where: memberOfAny(column, targetClass, ids),
      order: [],
      skip: 0,
      limit: PAGE,
      projection: { kind: 'include', columns: ['name'] },
    };
    const rows = await storage.find(table, plan);
    return rows.flatMap((row) => (typeof row['name'] === 'string' ? [{ objectId: row.objectId, name: row['name'] }] : []));
  };
  return {
    rolesWithUser: (userId) => read('users', '_User', [userId]),
    parentsOf: (roleIds) => read('roles', ROLE_CLASS, roleIds),
  };
}
