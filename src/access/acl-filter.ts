import type { WhereNode } from '../query/plan.js';
import type { Principals } from './principals.js';

/** The column every table keeps its ACL in. */
export const ACL_COLUMN = 'ACL';

/**
 * The read filter of an ACL as a where node, so every backend pushes it into its own query (SQL `WHERE`,
 * the memory evaluator) and `limit`, `skip` and `count` stay exact: no ACL, or a `read: true` grant for
 * one of the principals. AND it with the client's where.
 */
export function aclReadFilter(principals: Principals): WhereNode {
  return { kind: 'acl_read', principals: principals.keys };
}

/** `where AND acl` (the ACL filter is dropped for the master key by the caller, never here). */
export function withAclFilter(where: WhereNode, principals: Principals): WhereNode {
  const filter = aclReadFilter(principals);
  if (where.kind === 'all_records') return filter;
  return { kind: 'and', nodes: [where, filter] };
}
