import { type Acl, type AclPermission, PUBLIC_PRINCIPAL, ROLE_PREFIX } from './acl.js';

/**
 * Who a caller is for ACL purposes: `*`, its user's objectId and `role:<name>` for every role it holds
 * (directly or inherited). The master key is not a principal: it bypasses ACLs before they are read.
 */
export interface Principals {
  readonly userId: string | null;
  /** `*` first, then the user id, then `role:<name>` entries, without duplicates. */
  readonly keys: readonly string[];
}

export const ANONYMOUS: Principals = Object.freeze({ userId: null, keys: Object.freeze([PUBLIC_PRINCIPAL]) });

export function principalsOf(userId: string | null, roleNames: Iterable<string> = []): Principals {
  const keys = new Set<string>([PUBLIC_PRINCIPAL]);
  if (userId !== null) keys.add(userId);
  for (const name of roleNames) keys.add(ROLE_PREFIX + name);
  return { userId, keys: [...keys] };
}

/** Whether `acl` grants `permission` to any of the principals; a missing ACL grants everything. */
export function aclAllows(acl: Acl | undefined | null, principals: Principals, permission: AclPermission): boolean {
  if (acl === undefined || acl === null) return true;
  for (const key of principals.keys) {
    if (Object.hasOwn(acl, key) && acl[key]?.[permission] === true) return true;
  }
  return false;
}
