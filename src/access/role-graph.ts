/** A role as the resolver needs it: its id and name. */
export interface RoleRef {
  readonly objectId: string;
  readonly name: string;
}

/**
 * Reads the role graph from storage: the roles whose `users` relation holds the user, and the roles
 * whose `roles` relation holds any of the given roles (a child role's members get the parent's rights).
 */
export interface RoleLookup {
  rolesWithUser(userId: string): Promise<readonly RoleRef[]>;
  parentsOf(roleIds: readonly string[]): Promise<readonly RoleRef[]>;
}

/** More roles than this for one user is refused by the caller's budget (a pathological graph). */
export const MAX_RESOLVED_ROLES = 1000;

/**
 * Every role a user holds, directly or through child roles, breadth-first; cycles end because a role
 * is visited once. Returns role names. Stops at `limit` roles (the caller decides what that means).
 */
export async function resolveUserRoles(lookup: RoleLookup, userId: string, limit = MAX_RESOLVED_ROLES): Promise<{ names: string[]; truncated: boolean }> {
  const seen = new Map<string, string>();
  let frontier = await lookup.rolesWithUser(userId);
  while (frontier.length > 0) {
    const fresh: string[] = [];
    for (const role of frontier) {
      if (seen.has(role.objectId)) continue;
      if (seen.size >= limit) return { names: [...seen.values()], truncated: true };
      seen.set(role.objectId, role.name);
      fresh.push(role.objectId);
    }
    frontier = fresh.length === 0 ? [] : await lookup.parentsOf(fresh);
  }
  return { names: [...seen.values()], truncated: false };
}
